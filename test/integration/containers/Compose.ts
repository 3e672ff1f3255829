/**
 * deploy/compose/, run as shipped (its two files copied byte for byte beside the
 * secrets it names) with podman-compose: Redis, three replicas of the image and
 * HAProxy, in front of a service double that counts what it is sent. Through the
 * balancer, a confirmation is honoured once; a replica killed, the calls go on;
 * Redis restarted (it keeps nothing), nothing asked before is honoured.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Containers from "../../support/Containers.js"
import * as HttpMcp from "../../support/HttpMcp.js"
import { ServiceDouble } from "../../support/ServiceDouble.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const ADMIN = { key: "compose-admin-key", secret: "compose-admin-secret-value" }
const TOKEN = "compose-test-token-of-forty-characters-0"
const META = HttpMcp.modernMeta("compose-test", { elicitation: {} })
const PROJECT = Containers.namer("compose")("p")

let dir = ""
let balancer = ""
let double: ServiceDouble
let forward: Awaited<ReturnType<typeof Containers.forwardFromContainers>> | undefined

const compose = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Containers.compose(PROJECT, Path.join(dir, "compose.yaml"), args, env)

/** The container podman-compose made for a service. */
const container = (service: string) => Containers.composed(PROJECT, service)

const readyz = async (service: string) => {
  const answer = await Containers.request(`http://${await Containers.addressOf(container(service))}:8765/readyz`)
  return answer.status === 200 ? (JSON.parse(answer.body) as Any) : undefined
}

const running = async (service: string) =>
  (await Containers.podmanResult(["inspect", "--format", "{{.State.Running}}", container(service)])).stdout.trim() ===
  "true"

/** Each replica says the store is up (each reconnects on its own backoff). */
const storeUpOnEach = async (services: ReadonlyArray<string>) => {
  for (const service of services) {
    const state = await Containers.eventually(
      () => readyz(service),
      (r) => r?.store?.status === "up",
      60_000,
    )
    expect(state?.store?.status, `${service}: ${JSON.stringify(state)}`).toBe("up")
  }
}

const call = (params: Record<string, unknown>) =>
  Effect.runPromise(
    HttpMcp.modern(`${balancer}/mcp`, "tools/call", params, {
      meta: META,
      headers: { authorization: `Bearer ${TOKEN}`, "x-svc-api-key": ADMIN.key, "x-svc-api-secret": ADMIN.secret },
    }),
  )

const isQuestion = (answer: { body: Any }) => answer.body.result?.resultType === "input_required"
const stateOf = (answer: { body: Any }): string => {
  expect(isQuestion(answer), JSON.stringify(answer.body)).toBe(true)
  return answer.body.result.requestState as string
}
/** The call was sent and its answer given: a completed result, not an error. */
const honouredNow = (answer: { body: Any }) =>
  answer.body.result?.resultType === "complete" && answer.body.result?.isError !== true
const accept = (state: string) => ({ inputResponses: { confirm: { action: "accept" } }, requestState: state })
const deleteTag = (id: string) => ({ name: "svc_delete", arguments: { resource_type: "tag", params: { id } } })
const listTags = { name: "svc_list", arguments: { resource_type: "tag" } }
const deletes = (id: string) =>
  double.requests.filter((r) => r.path === "/write/DeleteTag" && (r.body as Any)?.id === id).length

describe.concurrent("deploy/compose: Redis, three replicas and HAProxy, with podman-compose", () => {
  beforeAll(async () => {
    Containers.ensureImage()
    dir = Containers.copyRecipe("compose", ["compose.yaml", "haproxy.cfg"])
    // Readable by the image's user and Redis's, as mounted secrets are.
    const secrets = {
      "mcp-token": TOKEN,
      "state-key": "compose-replicas-share-this-state-key-of-48-bytes",
      "store-password": "compose-store-password",
    }
    for (const [file, value] of Object.entries(secrets))
      Fs.writeFileSync(Path.join(dir, file), `${value}\n`, { mode: 0o644 })
    double = await new ServiceDouble({ apiKeys: [ADMIN] }).start()
    forward = await Containers.forwardFromContainers(Number(new URL(double.url).port))
    const port = await Containers.freePort()
    balancer = `http://127.0.0.1:${port}`
    const up = await compose(["up", "--detach"], {
      SVC_URL: forward.url,
      SVC_CONFIRM: "svc_delete:*",
      MCP_PORT: String(port),
    })
    expect(up.code, up.stdout).toBe(0)
    await storeUpOnEach(["replica-a", "replica-b", "replica-c"])
    // The balancer's checks find all three ready: three answers in a row from it.
    const ready = await Containers.eventually(
      async () => {
        const answers = await Promise.all([1, 2, 3].map(() => Containers.request(`${balancer}/readyz`)))
        return answers.every((a) => a.status === 200)
      },
      (all) => all,
      60_000,
    )
    expect(ready, await Containers.podman(["logs", container("proxy")])).toBe(true)
  }, Containers.BUILD_TIMEOUT_MS)

  afterAll(async () => {
    const ids = await Containers.podmanResult([
      "ps",
      "--all",
      "--quiet",
      "--filter",
      `label=io.podman.compose.project=${PROJECT}`,
    ])
    const all = ids.stdout.split("\n").filter((id) => id !== "")
    if (all.length > 0) await Containers.podmanResult(["rm", "--force", "--time", "0", ...all])
    await Containers.podmanResult(["network", "rm", "--force", `${PROJECT}_default`])
    await forward?.close()
    await double?.stop()
    if (dir !== "") Fs.rmSync(dir, { recursive: true, force: true })
  }, 120_000)

  it("through the balancer: a confirmation honoured once; a replica killed, calls go on; Redis restarted, nothing old honoured", async () => {
    // Asked through the balancer, answered through it (round robin: another replica): sent once.
    const asked = stateOf(await call(deleteTag("t1")))
    const sent = await call({ ...deleteTag("t1"), ...accept(asked) })
    expect(sent.body.result.isError, JSON.stringify(sent.body)).toBeFalsy()
    expect(deletes("t1")).toBe(1)
    // The same answer again, twice (so that another replica has it too): not sent again (asked again, or refused as
    // honoured already while the first call's outcome is being recorded).
    for (let i = 0; i < 2; i++) {
      const replayed = await call({ ...deleteTag("t1"), ...accept(asked) })
      expect(honouredNow(replayed), JSON.stringify(replayed.body)).toBe(false)
    }
    expect(deletes("t1")).toBe(1)

    // One replica killed: every call still answered, the dead one's share by another.
    await Containers.podman(["kill", container("replica-b")])
    for (let i = 0; i < 6; i++) {
      const read = await call(listTags)
      expect(read.status, JSON.stringify(read.body)).toBe(200)
      expect(read.body.result.isError, JSON.stringify(read.body)).toBeFalsy()
    }

    // Back (its restart policy may have started it already): serving again, in the balancer's turn.
    await Containers.podmanResult(["start", container("replica-b")])
    expect(
      await Containers.eventually(
        () => running("replica-b"),
        (up) => up,
      ),
    ).toBe(true)
    await storeUpOnEach(["replica-b"])

    // Redis restarted, empty (it persists nothing): a question asked before is not honoured.
    const before = stateOf(await call(deleteTag("t2")))
    await Containers.podman(["restart", "--time", "0", container("redis")])
    await storeUpOnEach(["replica-a", "replica-b", "replica-c"])
    for (let i = 0; i < 3; i++) {
      const old = await call({ ...deleteTag("t2"), ...accept(before) })
      expect(honouredNow(old), JSON.stringify(old.body)).toBe(false)
    }
    expect(deletes("t2")).toBe(0)
    // New questions work again, with no restart of the replicas.
    const fresh = stateOf(await Containers.eventually(() => call(deleteTag("t3")), isQuestion, 15_000))
    // The answer may reach a replica whose connection to the new Redis is not back yet (each reconnects on
    // its own backoff, and one was seen to drop again after its first answer): it refuses, records nothing
    // and says to try again, as a user then does.
    const honoured = await Containers.eventually(
      () => call({ ...deleteTag("t3"), ...accept(fresh) }),
      (answer) => !JSON.stringify(answer.body).includes("(SVC_MCP_STORE) did not answer"),
      15_000,
    )
    expect(honoured.body.result.isError, JSON.stringify(honoured.body)).toBeFalsy()
    expect(deletes("t3")).toBe(1)
  }, 180_000)
})
