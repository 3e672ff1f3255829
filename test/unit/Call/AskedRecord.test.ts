/**
 * Why a call is asked is one value (src/Call/Asked.ts), resolved where the call is resolved and
 * carried in its context: the question and every audit line of an asked call say the same why,
 * whichever setting asked (SVC_CONFIRM, SVC_REVEAL_SECRETS off before a secret shown once, the
 * guard after untrusted text). A path that asks without recording why fails here.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Audit from "../../../src/Operations/Audit.js"
import * as GuardSettings from "../../../src/Settings/Guard.js"
import type * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Touches from "../../../src/Settings/Touches.js"
import * as Guard from "../../../src/Untrusted/Guard.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"

type Line = Record<string, unknown>

const linesOf = (path: string): Array<Line> =>
  Fs.existsSync(path)
    ? Fs.readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Line)
    : []

/** The server over the sandbox, its audit log at a temporary path, the guard on (or not), answering each question with `answer`. */
const serve = (
  settings: Partial<Settings.ServerSettingsShape>,
  answer: "accept" | "decline",
  guard = false,
  hold: GuardSettings.GuardSettings["hold"] = [],
) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped()
    const path = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-asked-")), "audit.log")
    const config = Sandboxes.apiKeyConfig(sandbox)
    const service = Layer.mergeAll(
      Layers.client(config),
      Layer.orDie(Layer.scoped(Audit.Audit, Effect.map(Audit.open(path), Option.some))),
      guard ? Guard.layer({ mode: "ask", windowMs: 60_000, hold }) : Guard.layerOff,
    )
    const { client, asked } = yield* Mcp.connectV2(config, settings, { elicit: () => answer, service })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }))
    return { call, asked, lines: () => linesOf(path) }
  })

/** Every line of an asked call names why: asked, declined, and a sent change's intent and outcome. */
const whys = (lines: ReadonlyArray<Line>, tool: string) =>
  lines
    .filter((line) => line.tool === tool)
    .map((line) => [line.phase === "intent" ? "intent" : line.outcome, line.confirmation])

describe("the audit line of every asked call says why", () => {
  it.scopedLive("SVC_CONFIRM: asked and declined, then asked and sent, each line naming its pattern", () =>
    Effect.gen(function* () {
      const confirm = [
        { variable: "SVC_CONFIRM", text: "svc_delete:*", tool: /^svc_delete$/, selector: /^.*$/ },
      ] as const
      const declining = yield* serve({ confirm }, "decline")
      yield* declining.call("svc_delete", { resource_type: "tag", params: { id: "staging" } })
      expect(whys(declining.lines(), "svc_delete")).toEqual([
        ["asked", "SVC_CONFIRM (svc_delete:*)"],
        ["declined", "SVC_CONFIRM (svc_delete:*)"],
      ])
      const accepting = yield* serve({ confirm }, "accept")
      const deleted = yield* accepting.call("svc_delete", { resource_type: "tag", params: { id: "staging" } })
      expect(deleted.isError).toBeFalsy()
      expect(accepting.asked).toEqual([expect.stringMatching(/asked because of SVC_CONFIRM svc_delete:\*;/)])
      expect(whys(accepting.lines(), "svc_delete")).toEqual([
        ["asked", "SVC_CONFIRM (svc_delete:*)"],
        ["intent", "SVC_CONFIRM (svc_delete:*)"],
        ["ok", "SVC_CONFIRM (svc_delete:*)"],
      ])
    }),
  )

  it.scopedLive("SVC_REVEAL_SECRETS off before a secret shown once: the asked line names it", () =>
    Effect.gen(function* () {
      const server = yield* serve({ reach: "all" }, "decline")
      const args = { resource_type: "api_key_for_service_user", params: { user_id: "ci-deployer", name: "deploys" } }
      yield* server.call("svc_create", args)
      expect(server.asked).toEqual([expect.stringMatching(/asked because SVC_REVEAL_SECRETS is off;/)])
      expect(whys(server.lines(), "svc_create")).toEqual([
        ["asked", "SVC_REVEAL_SECRETS (svc_create:api_key_for_service_user)"],
        ["declined", "SVC_REVEAL_SECRETS (svc_create:api_key_for_service_user)"],
      ])
    }),
  )

  it.scopedLive("the guard after untrusted logs: asked, then sent, each line naming the guard's rule", () =>
    Effect.gen(function* () {
      const server = yield* serve({}, "accept", true)
      yield* server.call("svc_logs", { resource_type: "stack", params: { stack: "web", services: ["worker"] } })
      const deleted = yield* server.call("svc_delete", { resource_type: "stack", params: { id: "monitoring" } })
      expect(deleted.isError).toBeFalsy()
      expect(server.asked).toEqual([expect.stringMatching(/this follows reading the logs of stack web/)])
      const lines = whys(server.lines(), "svc_delete")
      expect(lines.map(([phase]) => phase)).toEqual(["asked", "intent", "ok"])
      for (const [, why] of lines) expect(why).toMatch(/^SVC_GUARD \(.+\)$/)
    }),
  )

  it.scopedLive(
    "SVC_GUARD_HOLD with @: a restart of a stack tagged production is held, saying why; another's is not",
    () =>
      Effect.gen(function* () {
        const hold = Either.getOrThrow(GuardSettings.parseHold("svc_execute:restart_stack@tag:production"))
        const server = yield* serve({}, "accept", true, hold)
        yield* server.call("svc_logs", { resource_type: "stack", params: { stack: "web", services: ["worker"] } })
        yield* server.call("svc_execute", { operation: "restart_stack", params: { stack: "staging-web" } })
        expect(server.asked).toEqual([])
        const restarted = yield* server.call("svc_execute", { operation: "restart_stack", params: { stack: "web" } })
        expect(restarted.isError).toBeFalsy()
        expect(server.asked).toEqual([expect.stringMatching(/this follows reading the logs of stack web/)])
        const why =
          'SVC_GUARD_HOLD (svc_execute:restart_stack@tag:production: stack "web" carries the tag "production")'
        expect(whys(server.lines(), "svc_execute").filter(([, confirmation]) => confirmation !== undefined)).toEqual([
          ["asked", why],
          ["intent", why],
          ["ok", why],
        ])
      }),
  )

  it.scopedLive(
    "SVC_CONFIRM with @builder: a build on the builder is asked, each line saying which; another tool's call is not",
    () =>
      Effect.gen(function* () {
        const confirm = [
          {
            variable: "SVC_CONFIRM",
            text: "svc_execute:*@builder:local-*",
            tool: /^svc_execute$/,
            selector: /^.*$/,
            touches: Either.getOrThrow(Touches.parse("builder:local-*")),
          },
        ] as const
        const server = yield* serve({ confirm }, "decline")
        yield* server.call("svc_execute", { operation: "pull_repo", params: { repo: "infra" } })
        expect(server.asked).toEqual([])
        yield* server.call("svc_execute", { operation: "run_build", params: { build: "api-image" } })
        const why =
          'SVC_CONFIRM (svc_execute:*@builder:local-*: build "api-image" builds on the builder "local-builder")'
        expect(server.asked).toEqual([
          expect.stringContaining('build "api-image" builds on the builder "local-builder"'),
        ])
        expect(whys(server.lines(), "svc_execute").filter(([, confirmation]) => confirmation !== undefined)).toEqual([
          ["asked", why],
          ["declined", why],
        ])
      }),
  )
})
