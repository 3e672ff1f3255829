/**
 * The recipes in deploy/ (Compose and Kubernetes), read as their tools read them (YAML): every
 * variable they set is a setting of ours (no silent setting), each pattern setting parses and
 * matches, `SVC_CONFIRM` is the class destructive rather than every execution, and the sign-in
 * recipes carry what a team's sign-in needs: the issuer, one public URL, the identities file, the
 * admin key as a secret, a signed audit log on a writable volume, Redis with a password.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Yaml from "yaml"
import { ALL } from "../../src/Cli/Variables.js"
import * as Settings from "../../src/Settings/ToolSettings.js"
import * as Policy from "../../src/Tools/Policy/Policy.js"

const DEPLOY = Path.join(import.meta.dirname, "../../deploy")
const KNOWN = new Set(ALL.map((variable) => variable.name))

type Env = Record<string, string>

const documents = (file: string): ReadonlyArray<Record<string, unknown>> =>
  Yaml.parseAllDocuments(Fs.readFileSync(Path.join(DEPLOY, file), "utf8"), { merge: true }).map(
    (document) => document.toJS() as Record<string, unknown>,
  )

/** Compose: each service's environment, the replicas' through their anchor. */
const composeEnvs = (file: string): Readonly<Record<string, Env>> => {
  const [top] = documents(file)
  const services = (top?.services ?? {}) as Record<string, { environment?: Env }>
  return Object.fromEntries(Object.entries(services).map(([name, service]) => [name, service.environment ?? {}]))
}

/** Kubernetes: each Deployment's container's env, by value (a value from a Secret as its reference). */
const kubeEnv = (file: string): Env => {
  const deployment = documents(file).find((d) => d.kind === "Deployment") as {
    spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } }
  }
  const [container] = deployment.spec.template.spec.containers
  return Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value ?? "(from a secret)"]))
}

/** A compose value as Compose fills it: `${NAME:-default}` its default, `${NAME:?...}` a stand-in. */
const filled = (value: string) =>
  value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1").replace(/\$\{[A-Z_]+:\?[^}]*\}/g, "https://example.com")

const recipes = (): ReadonlyArray<readonly [string, Env]> => [
  ...["compose/compose.yaml", "compose/sign-in.yaml"].flatMap((file) =>
    Object.entries(composeEnvs(file))
      .filter(([name]) => name.startsWith("replica-"))
      .map(
        ([name, env]) =>
          [`${file} ${name}`, Object.fromEntries(Object.entries(env).map(([k, v]) => [k, filled(String(v))]))] as const,
      ),
  ),
  ["kubernetes/deployment.yaml", kubeEnv("kubernetes/deployment.yaml")],
  ["kubernetes/sign-in.yaml", kubeEnv("kubernetes/sign-in.yaml")],
]

describe("the recipes in deploy/", () => {
  it.effect("set only settings of ours, whose patterns parse and match; SVC_CONFIRM is the class destructive", () =>
    Effect.gen(function* () {
      const all = recipes()
      expect(all.length).toBe(8)
      for (const [where, env] of all) {
        const unknown = Object.keys(env).filter((name) => name !== "POD_NAME" && !KNOWN.has(name))
        expect(unknown, where).toEqual([])
        expect(env.SVC_CONFIRM, where).toBe("destructive")
        const settings = yield* Settings.loadSettings.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
        )
        const policy = yield* Policy.make(settings)
        expect(policy.summary, where).toMatch(/SVC_CONFIRM=destructive/)
      }
    }),
  )

  it("the sign-in recipes: the issuer, one public URL, identities, the admin key from files, a signed audit log on a volume, Redis with a password", () => {
    const needed = [
      "SVC_MCP_OAUTH_ISSUER",
      "SVC_MCP_PUBLIC_URL",
      "SVC_MCP_IDENTITIES",
      "SVC_API_KEY_FILE",
      "SVC_API_SECRET_FILE",
      "SVC_AUDIT_LOG",
      "SVC_AUDIT_KEY_FILE",
      "SVC_MCP_STORE",
      "SVC_MCP_STORE_PASSWORD_FILE",
      "SVC_MCP_STATE_KEY_FILE",
    ]
    for (const [where, env] of recipes().filter(([where]) => where.includes("sign-in"))) {
      for (const name of needed) expect(env[name], `${where} ${name}`).toBeDefined()
      expect(env.SVC_API_KEY, where).toBeUndefined()
      expect(env.SVC_MCP_TOKEN, where).toBeUndefined()
    }
    // Compose: one public URL for all, each replica's audit on a volume of its own, every secret declared.
    const [top] = documents("compose/sign-in.yaml")
    const services = top?.services as Record<
      string,
      { volumes?: Array<string>; secrets?: Array<string>; command?: Array<string> }
    >
    const publicUrls = new Set(
      Object.values(composeEnvs("compose/sign-in.yaml"))
        .map((env) => env.SVC_MCP_PUBLIC_URL)
        .filter(Boolean),
    )
    expect(publicUrls.size).toBe(1)
    const volumes = ["replica-a", "replica-b", "replica-c"].map((name) => services[name]?.volumes?.[0])
    expect(new Set(volumes).size).toBe(3)
    for (const volume of volumes) expect(volume).toMatch(/^audit-[abc]:\/var\/lib\/svc-mcp$/)
    const declared = Object.keys((top?.secrets ?? {}) as object)
    for (const name of services["replica-a"]?.secrets ?? []) expect(declared).toContain(name)
    expect(services.redis?.command?.join(" ")).toMatch(/--requirepass/)
    // Kubernetes: each pod its own audit file on the shared claim; identities mounted whole, to be reloaded.
    const kube = kubeEnv("kubernetes/sign-in.yaml")
    expect(kube.SVC_AUDIT_LOG).toBe("/var/lib/svc-mcp/$(POD_NAME).audit.log")
    expect(documents("kubernetes/sign-in.yaml").map((d) => d.kind)).toEqual(["Deployment", "PersistentVolumeClaim"])
    // The image owns the directory the volumes are mounted at.
    expect(Fs.readFileSync(Path.join(DEPLOY, "Dockerfile"), "utf8")).toMatch(/chown 1000:1000 \/var\/lib\/svc-mcp/)
  })
})
