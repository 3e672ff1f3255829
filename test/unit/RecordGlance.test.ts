/**
 * Records at a glance (src/Tools/RecordGlance.ts, RecordViews.ts): svc_get's
 * and svc_inspect's answers on the sandbox, each whole with `fields: ["*"]`
 * exactly as they were answered before the glance came (a snapshot).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../support/Mcp.js"
import * as Sandboxes from "../support/Sandbox.js"

type Sandbox = Effect.Effect.Success<ReturnType<typeof Sandboxes.scoped>>

/** One record an assistant asks for, on the sandbox's small estate. */
interface Asked {
  readonly tool: string
  readonly key: string
  readonly selector: string
  readonly params: (sandbox: Sandbox) => Record<string, unknown>
}

const given =
  (params: Record<string, unknown>) =>
  (_: Sandbox): Record<string, unknown> =>
    params
const byId =
  (kind: "image_registry_account" | "git_provider_account", name: string) =>
  (sandbox: Sandbox): Record<string, unknown> => ({ id: sandbox.world.store.find(kind, name).id })

const get = (selector: string, params: Asked["params"]): Asked => ({
  tool: "svc_get",
  key: "resource_type",
  selector,
  params,
})
const inspect = (selector: string, params: Record<string, unknown>): Asked => ({
  tool: "svc_inspect",
  key: "inspect_type",
  selector,
  params: given(params),
})

/** A record of each type svc_get reaches, and of each svc_inspect answers on the sandbox. */
export const ASKED: ReadonlyArray<Asked> = [
  get("stack", given({ stack: "web" })),
  get("build", given({ build: "api-image" })),
  get("server", given({ server: "prod-01" })),
  get("procedure", given({ procedure: "release" })),
  get("deployment", given({ deployment: "api" })),
  get("alerter", given({ alerter: "ops-slack" })),
  get("image_registry_account", byId("image_registry_account", "ghcr.io:acme-bot")),
  get("sync_resource", given({ sync: "estate-sync" })),
  get("tag", given({ tag: "production" })),
  get("action", given({ action: "rotate-logs" })),
  get("repo", given({ repo: "infra" })),
  get("builder", given({ builder: "local-builder" })),
  get("swarm", given({ swarm: "edge-swarm" })),
  get("variable", given({ name: "DB_PASSWORD" })),
  get("user_group", given({ user_group: "operators" })),
  get("git_provider_account", byId("git_provider_account", "github.com:acme-bot")),
  inspect("container", { server: "prod-01", container: "web-web-1" }),
  inspect("image", { server: "prod-01", image: "nginx:1.27" }),
  inspect("network", { server: "prod-01", network: "bridge" }),
  inspect("volume", { server: "prod-01", volume: "redis-data" }),
  inspect("deployment_container", { deployment: "api" }),
  inspect("stack_container", { stack: "web", service: "web" }),
  inspect("swarm", { swarm: "edge-swarm" }),
  inspect("swarm_service", { swarm: "edge-swarm", service: "edge-proxy" }),
]

/**
 * What differs from one sandbox to the next: the fences' token, the ids' leading
 * seconds, the time a record was written.
 */
const steady = (text: string): string =>
  text
    .replace(/<u:[0-9a-f]{16}>/g, "<u:TOKEN>")
    .replace(/\b[0-9a-f]{8}(0{10}[0-9a-f]{6})\b/g, "OID-$1")
    .replace(/"updated_at":\d+/g, '"updated_at":0')
    // A container's id, and its hostname (the id's first 12 digits), hold the second it was made.
    .replace(/\b([0-9a-f]{8})[0-9a-f]{8}([0-9a-f]{48})\b/g, "$1-$2")
    .replace(/\b([0-9a-f]{8})[0-9a-f]{4}\b/g, "$1-")

describe('fields: ["*"]', () => {
  it.scopedLive("answers each record as it was answered before records came at a glance, byte for byte", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox))
      const answers: Record<string, string> = {}
      for (const { tool, key, selector, params } of ASKED) {
        const result = yield* Effect.promise(() =>
          client.callTool({ name: tool, arguments: { [key]: selector, params: params(sandbox), fields: ["*"] } }),
        )
        expect(result.isError, `${tool} ${selector}`).toBeFalsy()
        answers[`${tool} ${selector}`] = steady(Mcp.text(result))
      }
      yield* Effect.promise(() =>
        expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot("./snapshots/records-whole.json"),
      )
    }),
  )
})
