/**
 * deploy/kubernetes/, run with `podman kube play`: the Secret and the Deployment,
 * the image's pod ready through /readyz with its state key and token mounted from
 * the Secret as files.
 *
 * What a cluster would get from its own settings is set here, and what podman 4.3
 * (Debian's) does not do as Kubernetes does is worked around here, never in the
 * manifests:
 * - the image is svc-mcp:local, SVC_URL a service double's, names are this run's own;
 * - one replica with a hostPort: kube play publishes each pod's containerPort on the
 *   host, so three replicas would take the same port;
 * - no shared store: kube play 4.3 cannot hand a Secret's value to an env
 *   (secretKeyRef), and a single pod has no other to share confirmations with;
 * - the Secret's values as `data` (kube play 4.3 ignores stringData), and the token
 *   the pod was given read from its mounted file: podman 4.3 writes each value there
 *   still base64-encoded, Kubernetes writes it decoded.
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Yaml from "yaml"
import * as Containers from "../../support/Containers.js"
import * as HttpMcp from "../../support/HttpMcp.js"
import { ServiceDouble } from "../../support/ServiceDouble.js"

// biome-ignore lint/suspicious/noExplicitAny: manifests are edited field by field
type Any = any

const MANIFESTS = Path.join(Containers.ROOT, "deploy/kubernetes")
const name = Containers.namer("kube")
const SECRET = name("secret")
const DEPLOYMENT = name("d")
const MOUNT = "/run/secrets/svc-mcp"
const KEY = { key: "kube-caller-key", secret: "kube-caller-secret-value" }

let dir = ""
let manifest = ""
let base = ""
let double: ServiceDouble
let forward: Awaited<ReturnType<typeof Containers.forwardFromContainers>> | undefined

const read = (file: string) => Yaml.parse(Fs.readFileSync(Path.join(MANIFESTS, file), "utf8")) as Any

/** The container kube play made for the Deployment's one pod. */
const container = () => `${DEPLOYMENT}-pod-0-svc-mcp`

describe.concurrent("deploy/kubernetes, with podman kube play", () => {
  beforeAll(async () => {
    Containers.ensureImage()
    dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-kube-"))
    double = await new ServiceDouble({ apiKeys: [KEY] }).start()
    forward = await Containers.forwardFromContainers(Number(new URL(double.url).port))
    const port = await Containers.freePort()
    base = `http://127.0.0.1:${port}`

    const secret = read("secret.example.yaml")
    secret.metadata.name = SECRET
    const values: Record<string, string> = {
      ...secret.stringData,
      "state-key": Crypto.randomBytes(48).toString("base64"),
      "mcp-token": Crypto.randomBytes(24).toString("hex"),
      "store-password": Crypto.randomBytes(12).toString("hex"),
    }
    secret.data = Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString("base64")]),
    )
    delete secret.stringData

    const deployment = read("deployment.yaml")
    deployment.metadata.name = DEPLOYMENT
    deployment.spec.replicas = 1
    const pod = deployment.spec.template.spec
    const server = pod.containers[0]
    server.image = Containers.IMAGE
    server.ports[0].hostPort = port
    server.env = (server.env as Array<Any>)
      .filter((entry) => !entry.name.startsWith("SVC_MCP_STORE"))
      .map((entry) => (entry.name === "SVC_URL" ? { ...entry, value: forward?.url } : entry))
    pod.volumes[0].secret.secretName = SECRET

    manifest = Path.join(dir, "svc-mcp.yaml")
    Fs.writeFileSync(manifest, `${Yaml.stringify(secret)}---\n${Yaml.stringify(deployment)}`)
    await Containers.podman(["kube", "play", manifest])
  }, Containers.BUILD_TIMEOUT_MS)

  afterAll(async () => {
    if (manifest !== "") await Containers.podmanResult(["kube", "down", manifest])
    await Containers.podmanResult(["pod", "rm", "--force", `${DEPLOYMENT}-pod-0`])
    await Containers.podmanResult(["secret", "rm", SECRET])
    await Containers.podmanResult(["volume", "rm", "--force", SECRET])
    await forward?.close()
    await double?.stop()
    if (dir !== "") Fs.rmSync(dir, { recursive: true, force: true })
  }, 120_000)

  it("the pod becomes ready through /readyz, its state key and token mounted from the Secret as files", async () => {
    const ready = await Containers.eventually(
      () => Containers.request(`${base}/readyz`),
      (r) => r.status === 200,
      60_000,
    )
    expect(ready.status, (await Containers.podmanResult(["logs", container()])).stderr).toBe(200)
    expect(JSON.parse(ready.body)).toMatchObject({ status: "ready", ready: true })
    expect((await Containers.request(`${base}/healthz`)).status).toBe(200)
    // As runAsUser says, and as the image is.
    expect(await Containers.podman(["exec", container(), "id", "-u"])).toBe("1000")

    // The files the Secret's volume holds, the server's settings pointing at them.
    const files = (await Containers.podman(["exec", container(), "ls", MOUNT])).split(/\s+/).sort()
    // (kube play 4.3 mounts every key of the Secret, not only the volume's items.)
    expect(files).toEqual(expect.arrayContaining(["mcp-token", "state-key", "store-password"]))
    const env = await Containers.podman([
      "exec",
      container(),
      "printenv",
      "SVC_MCP_STATE_KEY_FILE",
      "SVC_MCP_TOKEN_FILE",
    ])
    expect(env.split("\n")).toEqual([`${MOUNT}/state-key`, `${MOUNT}/mcp-token`])
    const token = await Containers.podman(["exec", container(), "cat", `${MOUNT}/mcp-token`])

    // The token from the file is the one the server asks for; another is refused.
    const wrong = await Containers.request(`${base}/mcp`, {
      method: "POST",
      headers: { ...HttpMcp.JSON_HEADERS, authorization: "Bearer not-the-token-from-the-secret" },
      body: HttpMcp.INITIALIZE,
    })
    expect(wrong.status).toBe(401)
    const tools = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* HttpMcp.connect(`${base}/mcp`, {
            authorization: `Bearer ${token}`,
            // The Deployment's SVC_MCP_CREDENTIALS=per-request: each caller brings its own key.
            "x-svc-api-key": KEY.key,
            "x-svc-api-secret": KEY.secret,
          })
          return yield* Effect.promise(() => client.listTools())
        }),
      ),
    )
    expect(tools.tools).toHaveLength(13)
  }, 120_000)
})
