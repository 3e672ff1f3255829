/**
 * The image (deploy/Dockerfile, built by scripts/image.mjs as `npm run image`
 * builds it), run with podman as a team runs it: a read-only root, the token from
 * a file, against the in-memory sandbox. It serves MCP over HTTP, answers its
 * probes, runs unprivileged, refuses a bad setting with one line and exit code 2,
 * and exits on its own within the 10 s a SIGTERM leaves it.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Containers from "../../support/Containers.js"
import * as HttpMcp from "../../support/HttpMcp.js"
import { ServiceDouble } from "../../support/ServiceDouble.js"

const name = Containers.namer("image")
const TOKEN = "image-test-token-of-forty-characters-000"
const VERSION = (JSON.parse(Fs.readFileSync(Path.join(Containers.ROOT, "package.json"), "utf8")) as { version: string })
  .version
let secrets = ""
const started: Array<string> = []

/** Split as a shell splits a line of words and double-quoted words. */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2]) as string)

/** The image started detached as a team runs it: read-only root, the token from a mounted file. */
const start = async (what: string, env: Record<string, string>, args: ReadonlyArray<string> = []) => {
  const container = name(what)
  started.push(container)
  await Containers.podman([
    "run",
    "--detach",
    "--name",
    container,
    "--read-only",
    "--publish",
    "127.0.0.1::8765",
    "--volume",
    `${Path.join(secrets, "mcp-token")}:/run/secrets/mcp-token:ro`,
    "--env",
    "SVC_MCP_TOKEN_FILE=/run/secrets/mcp-token",
    ...Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    Containers.IMAGE,
    ...args,
  ])
  return container
}

const serving = async (container: string) => {
  const base = `http://127.0.0.1:${await Containers.publishedPort(container, 8765)}`
  const healthz = await Containers.eventually(
    () => Containers.request(`${base}/healthz`),
    (r) => r.status === 200,
  )
  expect(healthz.status, await Containers.podman(["logs", container])).toBe(200)
  return base
}

describe.concurrent("the image, run with podman", () => {
  beforeAll(() => {
    Containers.ensureImage()
    secrets = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-image-"))
    // Readable by the image's user, as a mounted secret is.
    Fs.writeFileSync(Path.join(secrets, "mcp-token"), `${TOKEN}\n`, { mode: 0o644 })
  }, Containers.BUILD_TIMEOUT_MS)

  afterAll(async () => {
    if (started.length > 0) await Containers.podmanResult(["rm", "--force", "--time", "0", ...started])
    Fs.rmSync(secrets, { recursive: true, force: true })
  }, 60_000)

  it("serves MCP over HTTP against the sandbox, answers /healthz and /readyz, as an unprivileged user on a read-only root", async () => {
    // Telemetry configured (to nowhere): the modules the image kept for it load, and serving goes on.
    const container = await start("serve", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }, ["--sandbox"])
    const base = await serving(container)
    expect(JSON.parse((await Containers.request(`${base}/healthz`)).body)).toEqual({ status: "ok" })
    const readyz = await Containers.request(`${base}/readyz`)
    expect(readyz.status).toBe(200)
    expect(JSON.parse(readyz.body)).toMatchObject({ status: "ready", ready: true })

    // No token, no MCP.
    const refused = await Containers.request(`${base}/mcp`, {
      method: "POST",
      headers: HttpMcp.JSON_HEADERS,
      body: HttpMcp.INITIALIZE,
    })
    expect(refused.status).toBe(401)
    const { tools, listed } = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* HttpMcp.connect(`${base}/mcp`, { authorization: `Bearer ${TOKEN}` })
          const tools = yield* Effect.promise(() => client.listTools())
          const listed = yield* Effect.promise(() =>
            client.callTool({ name: "svc_list", arguments: { resource_type: "server" } }),
          )
          return { tools, listed }
        }),
      ),
    )
    expect(tools.tools).toHaveLength(13)
    expect(listed.isError, HttpMcp.textOf(listed)).toBeFalsy()

    expect(await Containers.podman(["exec", container, "id", "-u"])).toBe("1000")
    expect(await Containers.podman(["inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", container])).toBe("true")
    const write = await Containers.podmanResult(["exec", container, "touch", "/opt/svc-mcp/x"])
    expect(write.code).not.toBe(0)
    // The image's own HEALTHCHECK, run now rather than on its timer, with the retries it declares
    // (3): a node started on a loaded machine can pass its 3 s once, as it can in production.
    let health = await Containers.podmanResult(["healthcheck", "run", container])
    for (let retry = 1; retry < 3 && health.code !== 0; retry++) {
      health = await Containers.podmanResult(["healthcheck", "run", container])
    }
    expect(health.code, `${health.stdout}${health.stderr}`).toBe(0)
    expect(await Containers.podman(["logs", container])).not.toContain(TOKEN)
  }, 90_000)

  it("says what it is: OCI labels, a numeric unprivileged user, a health check on /healthz", async () => {
    const [image] = JSON.parse(await Containers.podman(["image", "inspect", Containers.IMAGE]))
    const config = image.Config
    expect(config.User).toBe("1000:1000")
    expect(config.Labels).toMatchObject({
      "org.opencontainers.image.version": VERSION,
      "org.opencontainers.image.licenses": "MIT",
      "org.opencontainers.image.source": "https://github.com/svc-mcp/svc-mcp",
    })
    expect(config.Labels["org.opencontainers.image.revision"]).toMatch(/^[0-9a-f]{40}$/)
    expect(JSON.stringify(image.Healthcheck.Test)).toContain("/healthz")
    expect(config.ExposedPorts).toHaveProperty("8765/tcp")
  }, 30_000)

  it("refuses a bad setting: exit code 2 and one line naming it", async () => {
    const container = await start("bad", { SVC_URL: "svc.example.com", SVC_MODE: "full" })
    const code = await Containers.podman(["wait", container])
    const logs = await Containers.podmanResult(["logs", container])
    expect(code).toBe("2")
    const lines = `${logs.stdout}${logs.stderr}`.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^svc-mcp: SVC_URL /)
  }, 60_000)

  it("on SIGTERM, exits by itself within its 10 s", async () => {
    const container = await start("stop", {}, ["--sandbox"])
    await serving(container)
    // podman stop sends SIGTERM, then SIGKILL after --time seconds: exit code 0, not 137, is an exit of its own in time.
    await Containers.podman(["stop", "--time", "10", container])
    expect(await Containers.podman(["inspect", "--format", "{{.State.ExitCode}}", container])).toBe("0")
  }, 60_000)

  it("runs as the README's docker run line says (with podman, against a service double)", async () => {
    const readme = Fs.readFileSync(Path.join(Containers.ROOT, "README.md"), "utf8")
    const line = readme.split("\n").find((text) => text.startsWith("docker run "))
    expect(line).toBeDefined()
    const caller = { key: "readme-caller-key", secret: "readme-caller-secret-value" }
    const double = await new ServiceDouble({ apiKeys: [caller] }).start()
    const forward = await Containers.forwardFromContainers(Number(new URL(double.url).port))
    try {
      const container = name("readme")
      started.push(container)
      // Here: podman, a free port on loopback, the token file of this test, the double for the service.
      const given = words(line ?? "").slice(2)
      expect(given).toContain("--read-only")
      const args = given.map((word) =>
        word === "8765:8765"
          ? "127.0.0.1::8765"
          : word.replace("$PWD", secrets).replace(/^SVC_URL=.*$/, `SVC_URL=${forward.url}`),
      )
      await Containers.podman(["run", "--name", container, ...args])
      const base = await serving(container)
      const readyz = await Containers.eventually(
        () => Containers.request(`${base}/readyz`),
        (r) => r.status === 200,
      )
      expect(readyz.status, readyz.body).toBe(200)
      const listed = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const client = yield* HttpMcp.connect(`${base}/mcp`, {
              authorization: `Bearer ${TOKEN}`,
              "x-svc-api-key": caller.key,
              "x-svc-api-secret": caller.secret,
            })
            return yield* Effect.promise(() =>
              client.callTool({ name: "svc_list", arguments: { resource_type: "tag" } }),
            )
          }),
        ),
      )
      expect(listed.isError, HttpMcp.textOf(listed)).toBeFalsy()
      expect(double.requests.some((r) => r.path === "/read/ListTags")).toBe(true)
    } finally {
      await forward.close()
      await double.stop()
    }
  }, 90_000)
})
