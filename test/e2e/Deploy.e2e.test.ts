/**
 * deploy/ held to the server: every variable its files name is one the server
 * reads (src/Cli/Variables.ts), every probe path is one the built server answers
 * 200 on, and every secret the Deployment refers to exists by that name and key.
 * (Here the files are read; Image, Compose and Kube.e2e run them with podman.)
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Yaml from "yaml"
import * as Variables from "../../src/Cli/Variables.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: manifests are read field by field
type Any = any

const DEPLOY = Path.resolve(Path.dirname(import.meta.dirname), "../deploy")
const read = (file: string) => Fs.readFileSync(Path.join(DEPLOY, file), "utf8")
const files = (Fs.readdirSync(DEPLOY, { recursive: true }) as Array<string>).filter((f) =>
  Fs.statSync(Path.join(DEPLOY, f)).isFile(),
)
const known = new Set(Variables.ALL.map((v) => v.name))

const compose = Yaml.parse(read("compose/compose.yaml"), { merge: true }) as Any
const deployment = Yaml.parse(read("kubernetes/deployment.yaml")) as Any
const secret = Yaml.parse(read("kubernetes/secret.example.yaml")) as Any
const container = deployment.spec.template.spec.containers[0]

/** Every probe path the deploy files name: the Kubernetes probes, the proxy's check, the Compose health check. */
const probePaths = (): Array<string> => {
  const paths = [container.livenessProbe.httpGet.path, container.readinessProbe.httpGet.path]
  for (const match of read("compose/haproxy.cfg").matchAll(/httpchk GET (\S+)/g)) paths.push(match[1])
  for (const service of Object.values(compose.services) as Array<Any>) {
    const test = JSON.stringify(service.healthcheck?.test ?? "")
    for (const match of test.matchAll(/127\.0\.0\.1:\d+(\/[a-z]+)/g)) paths.push(match[1] as string)
  }
  return paths
}

describe("deploy/", () => {
  it("names only variables the server reads, in every file", () => {
    const named = new Set<string>()
    for (const file of files) {
      for (const match of read(file).matchAll(/\b(?:SVC|OTEL)_[A-Z0-9_]+\b/g)) named.add(match[0])
    }
    expect(named.size).toBeGreaterThan(5)
    expect([...named].filter((name) => !known.has(name))).toEqual([])
  })

  it("Compose: three replicas with the same environment, the store and the state key from secrets, a proxy", () => {
    const replicas = Object.entries(compose.services).filter(([name]) => name.startsWith("replica-"))
    expect(replicas).toHaveLength(3)
    for (const [, service] of replicas as Array<[string, Any]>) {
      expect(Object.keys(service.environment).every((name) => known.has(name))).toBe(true)
      expect(service.environment.SVC_MCP_STATE_KEY_FILE).toBe("/run/secrets/state-key")
      expect(service.environment.SVC_MCP_STORE).toMatch(/^redis:\/\/redis:6379/)
      for (const name of service.secrets) expect(compose.secrets[name]).toBeDefined()
    }
    expect(compose.services.redis).toBeDefined()
    expect(read("compose/haproxy.cfg")).toMatch(/balance roundrobin/)
    for (const name of ["a", "b", "c"]) expect(read("compose/haproxy.cfg")).toContain(`replica-${name}:8765`)
  })

  it("Kubernetes: probes on /healthz and /readyz, the state key and the store from the secret it names", () => {
    expect(container.livenessProbe.httpGet.path).toBe("/healthz")
    expect(container.readinessProbe.httpGet.path).toBe("/readyz")
    const env = container.env as Array<Any>
    for (const entry of env) expect(known.has(entry.name), entry.name).toBe(true)
    const byName = new Map(env.map((entry) => [entry.name, entry]))
    expect(byName.get("SVC_MCP_STORE").valueFrom.secretKeyRef).toEqual({ name: secret.metadata.name, key: "store-url" })
    const mount = container.volumeMounts[0].mountPath
    expect(byName.get("SVC_MCP_STATE_KEY_FILE").value).toBe(`${mount}/state-key`)
    const volume = deployment.spec.template.spec.volumes[0]
    expect(volume.secret.secretName).toBe(secret.metadata.name)
    for (const item of volume.secret.items) expect(Object.keys(secret.stringData)).toContain(item.key)
    // No secret's value is written in the Deployment itself.
    for (const entry of env) {
      if (/TOKEN|KEY|PASSWORD|SECRET/.test(entry.name) && !entry.name.endsWith("_FILE")) {
        expect(entry.value, entry.name).toBeUndefined()
      }
    }
    const service = Yaml.parse(read("kubernetes/service.yaml")) as Any
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels)
    expect(service.spec.sessionAffinity).toBe("None")
  })

  it.scopedLive("every probe path is one the built server answers 200 on", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped({ apiKey: { key: "k", secret: "s" } })
      const server = yield* Spawn.serveHttp({ SVC_URL: double.url, SVC_MCP_CREDENTIALS: "per-request" })
      const paths = [...new Set(probePaths())]
      expect(paths.sort()).toEqual(["/healthz", "/readyz"])
      for (const path of paths) {
        const answer = yield* HttpMcp.raw(server.url.replace(/\/mcp$/, path))
        expect(answer.status, path).toBe(200)
      }
    }),
  )
})
