/**
 * deploy/compose/sign-in.yaml, run as shipped (it and haproxy.cfg copied byte for byte beside the
 * secrets it names) with podman-compose: Redis with a password, three replicas of the image with
 * the identities file, the admin's key and a signed audit log on a volume each, and HAProxy, in
 * front of the sandbox, with sign-in at a test issuer (oidc-provider on the host). A person signs
 * in at the issuer (the authorization code with PKCE) and is served through the recipe's one
 * public URL by every replica with the one key minted for them; SIGHUP to every replica, after
 * their entry is gone from the file, revokes them; `audit verify` in a replica reads the lines of
 * all three, from its file and the store, their checkpoints signed.
 *
 * What differs from a team's set-up is only what the recipe asks to be given, as its header says:
 * SVC_URL (the sandbox, through a forward the containers reach), SVC_MCP_OAUTH_ISSUER (the test
 * issuer, named host.containers.internal as the containers reach the host), SVC_MCP_PUBLIC_URL
 * and MCP_PORT (a free port on the host's loopback), and the secrets' values (the sandbox's admin
 * key, random keys, this test's identities).
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Sandbox from "../../../src/Sandbox/Server.js"
import * as AuthServer from "../../support/AuthServer.js"
import * as Containers from "../../support/Containers.js"
import * as HttpMcp from "../../support/HttpMcp.js"
import * as Ports from "../../support/Ports.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const PROJECT = Containers.namer("sign-in")("p")
const REPLICAS = ["replica-a", "replica-b", "replica-c"] as const
const META = HttpMcp.modernMeta("sign-in-recipe-test")
/** The client the person signs in with (a public one, PKCE), as an editor's MCP client is. */
const CLIENT = { id: "team-editor", redirectUri: "http://127.0.0.1:1/callback" }
const PERSON = "dana"
const EMAIL = AuthServer.emailOf(PERSON)
const SERVICE_USER = `svc-mcp:${EMAIL}`
/**
 * Dana may deploy one stack: the service answers her own key with that one, where the admin's
 * sees every stack. (A read is not audited; a deploy is, and names the replica's caller.)
 */
const IDENTITIES = { claim: "email", identities: { [EMAIL]: { mint: { level: "Execute", targets: ["Stack:web"] } } } }

let dir = ""
let publicUrl = ""
let sandbox: Sandbox.Sandbox | undefined
let issuer: Awaited<ReturnType<typeof AuthServer.start>> | undefined
let forward: Awaited<ReturnType<typeof Containers.forwardFromContainers>> | undefined

const compose = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Containers.compose(PROJECT, Path.join(dir, "sign-in.yaml"), args, env)

/** The container podman-compose made for a service. */
const container = (service: string) => Containers.composed(PROJECT, service)

const readyz = async (service: string) =>
  Containers.request(`http://${await Containers.addressOf(container(service))}:8765/readyz`)

/** The service's answer to its admin (the sandbox's own key). */
const asAdmin = async (endpoint: string, params: unknown): Promise<Any> => {
  const answer = await Containers.request(`${sandbox?.url}/${endpoint}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": Sandbox.DEFAULTS.apiKey.key,
      "x-api-secret": Sandbox.DEFAULTS.apiKey.secret,
    },
    body: JSON.stringify(params),
  })
  if (answer.status !== 200) throw new Error(`${endpoint}: ${answer.status} ${answer.body}`)
  return JSON.parse(answer.body)
}

/** The keys the service holds for dana's service user. */
const danasKeys = async (): Promise<Array<Any>> => {
  const user = await asAdmin("read/FindUser", { username: SERVICE_USER })
  return asAdmin("read/ListApiKeysForServiceUser", { user: user._id.$oid })
}

const call = (token: string, name: string, args: Record<string, unknown>) =>
  Effect.runPromise(
    HttpMcp.modern(
      `${publicUrl}/mcp`,
      "tools/call",
      { name, arguments: args },
      { meta: META, headers: { authorization: `Bearer ${token}` } },
    ),
  )

const listStacks = (token: string) => call(token, "svc_list", { resource_type: "stack", fields: ["name"] })
const deployWeb = (token: string) => call(token, "svc_execute", { operation: "deploy_stack", params: { stack: "web" } })

/** A call's structured answer, once it is known to have succeeded. */
const done = (answer: { status: number; body: Any }) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  expect(answer.body.result?.resultType, JSON.stringify(answer.body)).toBe("complete")
  expect(answer.body.result?.isError, JSON.stringify(answer.body)).toBeFalsy()
  return answer.body.result.structuredContent
}

/** Where each replica's audit volume is on the host (rootful podman's storage): read there, not through exec. */
const volumes = new Map<string, string>()

/** A replica's audit log, as it is on its own volume. */
const auditOf = async (service: string) => {
  const found =
    volumes.get(service) ??
    (await Containers.podman([
      "inspect",
      "--format",
      '{{range .Mounts}}{{if eq .Destination "/var/lib/svc-mcp"}}{{.Source}}{{end}}{{end}}',
      container(service),
    ]))
  volumes.set(service, found)
  return Fs.readFileSync(Path.join(found, "audit.log"), "utf8")
}

const servedDana = (audit: string) =>
  audit
    .split("\n")
    .some(
      (line) =>
        line.includes(`"who":"oauth:${EMAIL}"`) &&
        line.includes(`"acting":"${SERVICE_USER}"`) &&
        line.includes('"tool":"svc_execute"') &&
        line.includes('"outcome":"ok"'),
    )

describe.concurrent("deploy/compose/sign-in.yaml: sign-in at an issuer, minted keys, three replicas", () => {
  beforeAll(async () => {
    Containers.ensureImage()
    dir = Containers.copyRecipe("sign-in", ["sign-in.yaml", "haproxy.cfg"])
    const port = await Ports.freePort()
    publicUrl = `http://127.0.0.1:${port}`
    sandbox = await Sandbox.start({ timing: { completeMs: 60 } })
    forward = await Containers.forwardFromContainers(Number(new URL(sandbox.url).port))
    issuer = await AuthServer.start({
      resource: `${publicUrl}/mcp`,
      clients: [],
      publicClients: [CLIENT],
      issuerHost: "host.containers.internal",
    })
    // Readable by the image's user (and Redis's), as mounted secrets are.
    const secrets = {
      "admin-api-key": Sandbox.DEFAULTS.apiKey.key,
      "admin-api-secret": Sandbox.DEFAULTS.apiKey.secret,
      "identities.json": JSON.stringify(IDENTITIES),
      "state-key": Crypto.randomBytes(48).toString("base64"),
      "store-password": Crypto.randomBytes(48).toString("base64"),
      "audit-key": Crypto.randomBytes(48).toString("base64"),
    }
    for (const [file, value] of Object.entries(secrets))
      Fs.writeFileSync(Path.join(dir, file), `${value}\n`, { mode: 0o644 })
    const up = await compose(["up", "--detach"], {
      SVC_URL: forward.url,
      SVC_MCP_OAUTH_ISSUER: issuer.server.issuer,
      SVC_MCP_PUBLIC_URL: publicUrl,
      MCP_PORT: String(port),
    })
    expect(up.code, up.stdout).toBe(0)
    // Each replica ready: the issuer's metadata and keys fetched, the store answering with its password.
    for (const service of REPLICAS) {
      const ready = await Containers.eventually(
        () => readyz(service),
        (r) => r.status === 200,
        60_000,
      )
      expect(ready.status, (await Containers.podmanResult(["logs", container(service)])).stderr).toBe(200)
    }
    // The balancer's checks find all three ready: three answers in a row from it.
    const all = await Containers.eventually(
      () => Promise.all(REPLICAS.map(() => Containers.request(`${publicUrl}/readyz`))),
      (answers) => answers.every((a) => a.status === 200),
      30_000,
    )
    expect(
      all.map((a) => a.status),
      await Containers.podman(["logs", container("proxy")]),
    ).toEqual([200, 200, 200])
  }, Containers.BUILD_TIMEOUT_MS)

  afterAll(async () => {
    const label = `label=io.podman.compose.project=${PROJECT}`
    const ids = await Containers.podmanResult(["ps", "--all", "--quiet", "--filter", label])
    const all = ids.stdout.split("\n").filter((id) => id !== "")
    if (all.length > 0) await Containers.podmanResult(["rm", "--force", "--time", "0", ...all])
    await Containers.podmanResult(["network", "rm", "--force", `${PROJECT}_default`])
    const volumes = await Containers.podmanResult(["volume", "ls", "--quiet", "--filter", label])
    const names = volumes.stdout.split("\n").filter((name) => name !== "")
    if (names.length > 0) await Containers.podmanResult(["volume", "rm", "--force", ...names])
    await forward?.close()
    await issuer?.close()
    await sandbox?.close()
    if (dir !== "") Fs.rmSync(dir, { recursive: true, force: true })
  }, 120_000)

  it("a person signs in at the issuer and is served by every replica with one minted key; SIGHUP revokes; the audit verifies", async () => {
    const as = issuer?.server as AuthServer.AuthServer
    // One public URL for all three: each answers a bare call with the same challenge, whose
    // metadata names the public resource and the issuer.
    const metadataUrl = `${publicUrl}/.well-known/oauth-protected-resource/mcp`
    for (const _ of REPLICAS) {
      const bare = await fetch(`${publicUrl}/mcp`, {
        method: "POST",
        headers: HttpMcp.JSON_HEADERS,
        body: HttpMcp.INITIALIZE,
      })
      expect(bare.status).toBe(401)
      expect(bare.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`)
      const metadata = (await (await fetch(metadataUrl)).json()) as Any
      expect(metadata.resource).toBe(`${publicUrl}/mcp`)
      expect(metadata.authorization_servers).toEqual([as.issuer])
    }

    // Dana signs in at the issuer, as at her browser. Her key's permissions hold at the service: the
    // one stack she may see.
    const token = await as.signIn(CLIENT, PERSON, "svc.operate")
    expect(done(await listStacks(token)).result.map((row: Any) => row.name)).toEqual(["web"])
    // She deploys through the balancer until every replica has served her (round robin: one turn
    // each, or a few more while a check comes back). A deploy is not asked (SVC_CONFIRM=destructive).
    const served = new Set<string>()
    let update = ""
    for (let turn = 0; turn < 12 && served.size < REPLICAS.length; turn++) {
      update = done(await deployWeb(token)).update
      if (turn >= REPLICAS.length - 1)
        for (const service of REPLICAS)
          if (!served.has(service) && servedDana(await auditOf(service))) served.add(service)
    }
    expect([...served].sort()).toEqual([...REPLICAS])
    // One service user, one key, shared through the store behind its password; the service's
    // history names her service user as the deploy's operator.
    expect(await danasKeys()).toHaveLength(1)
    const user = await asAdmin("read/FindUser", { username: SERVICE_USER })
    expect((await asAdmin("read/GetUpdate", { id: update })).operator).toBe(user._id.$oid)
    // No secret in any replica's audit log.
    for (const service of REPLICAS) {
      const audit = await auditOf(service)
      expect(audit).not.toContain(Sandbox.DEFAULTS.apiKey.secret)
      expect(audit).not.toContain(token)
    }

    // Her entry gone from the file and SIGHUP to every replica, as the recipe says: her key is deleted
    // at the service, her service user disabled, and every replica refuses her.
    Fs.writeFileSync(Path.join(dir, "identities.json"), JSON.stringify({ claim: "email", identities: {} }))
    await Containers.podman(["kill", "--signal", "HUP", ...REPLICAS.map(container)])
    const keys = await Containers.eventually(danasKeys, (found) => Array.isArray(found) && found.length === 0, 15_000)
    expect(keys).toEqual([])
    expect((await asAdmin("read/FindUser", { username: SERVICE_USER })).enabled).toBe(false)
    // (Each replica reads the file on its own signal: a call may reach one still reading it.)
    for (const _ of REPLICAS) {
      const refused = await Containers.eventually(
        () => listStacks(token),
        (answer) => answer.status === 403,
        10_000,
      )
      expect(refused.status, JSON.stringify(refused.body)).toBe(403)
    }

    // The audit: two replicas stopped (each signs its last checkpoint), `audit verify` on the third,
    // as an operator runs it there, reads its file and the store's stream with the store's password
    // and the audit key the recipe gives it: every replica's lines, the two stopped ones closed.
    await Containers.podman(["stop", container("replica-b"), container("replica-c")])
    const verify = () =>
      Containers.podmanResult([
        "exec",
        container("replica-a"),
        "node",
        "/opt/svc-mcp/dist/svc-mcp.js",
        "audit",
        "verify",
        "--store",
        "redis://redis:6379/0",
        "/var/lib/svc-mcp/audit.log",
      ])
    // Run again, as an operator would, only where the store could not be reached in the command's
    // 5 s (the container network's name lookup, with four suites of containers on two cores): the
    // report itself is never retried past.
    let verified = await verify()
    for (let tries = 1; tries < 3 && verified.code === 2 && /\(Connection timeout\)/.test(verified.stderr); tries++) {
      verified = await verify()
    }
    const report = verified.stderr
    // 3: open, as replica-a's writer still runs; 1 would be a broken line.
    expect(verified.code, report).toBe(3)
    expect(report).not.toContain("first broken line")
    expect(report.match(/^writer /gm), report).toHaveLength(3)
    expect(report.match(/closed at a clean stop/g), report).toHaveLength(2)
    expect(report).toMatch(/checkpoints signed and verified with SVC_AUDIT_KEY: [1-9]/)
  }, 120_000)
})
