/**
 * Policy patterns that name what a call touches, after `@` (src/Settings/Touches.ts): today's
 * `tool:selector` patterns parse and match as before; `*` alone is every change; `@tag:`,
 * `@server:` and `@TYPE:` parse, and their names match as `*` globs, every other character as
 * itself; a call's targets are resolved from its params (Tools/Policy/Targets.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "fast-check"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Touches from "../../../src/Settings/Touches.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import * as Targets from "../../../src/Tools/Policy/Targets.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const load = (env: Record<string, string>) =>
  Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

/** A glob as a person reads it: `*` any run, every other character itself (the oracle, by recursion). */
const glob = (pattern: string, name: string): boolean => {
  if (pattern === "") return name === ""
  if (pattern[0] === "*") return glob(pattern.slice(1), name) || (name !== "" && glob(pattern, name.slice(1)))
  return name !== "" && pattern[0] === name[0] && glob(pattern.slice(1), name.slice(1))
}

const word = FastCheck.stringMatching(/^[A-Za-z0-9_*]{1,12}$/)
const nameChars = FastCheck.stringMatching(/^[A-Za-z0-9_.*-]{1,12}$/)

describe("patterns without @", () => {
  it("parse as before: their tool and selector as `*` globs, nothing touched", () =>
    FastCheck.assert(
      FastCheck.property(word, word, FastCheck.string({ maxLength: 8 }), (tool, selector, probe) => {
        const parsed = Effect.runSync(Effect.either(load({ SVC_CONFIRM: `${tool}:${selector}` })))
        if (Either.isLeft(parsed)) throw new Error(`refused ${tool}:${selector}`)
        const [pattern] = parsed.right.confirm
        expect(pattern?.touches).toBeUndefined()
        expect(pattern?.changes).toBeUndefined()
        expect(pattern?.tool.test(probe)).toBe(glob(tool, probe))
        expect(pattern?.selector.test(probe)).toBe(glob(selector, probe))
      }),
    ))

  it.effect("name the same calls as before; `*` alone names every change and no read", () =>
    Effect.gen(function* () {
      const settings = yield* load({ SVC_CONFIRM: "svc_delete:*,*" })
      const policy = yield* Policy.make({ ...Settings.DEFAULT_SETTINGS, ...settings })
      expect(policy.confirming(Definitions.svc_delete, "stack").map((p) => p.text)).toEqual(["svc_delete:*", "*"])
      expect(policy.confirming(Definitions.svc_execute, "deploy_stack").map((p) => p.text)).toEqual(["*"])
      expect(policy.confirming(Definitions.svc_list, "stack")).toEqual([])
      expect(policy.confirming(Definitions.svc_get, "stack")).toEqual([])
    }),
  )
})

describe("patterns with @", () => {
  it("parse tag:, server: and TYPE: with any name, and the name matches as a glob", () =>
    FastCheck.assert(
      FastCheck.property(
        FastCheck.constantFrom("tag", "server", ...Touches.TYPES),
        nameChars,
        FastCheck.stringMatching(/^[A-Za-z0-9_.-]{0,10}$/),
        (kind, name, probe) => {
          const parsed = Touches.split(`svc_execute:deploy_*@${kind}:${name}`)
          if (Either.isLeft(parsed)) throw new Error(parsed.left)
          const touch = parsed.right.touch
          expect(parsed.right.head).toBe("svc_execute:deploy_*")
          expect(touch?._tag).toBe(kind === "tag" ? "Tag" : kind === "server" ? "Server" : "Resource")
          expect(touch?.name.test(probe)).toBe(glob(name, probe))
        },
      ),
    ))

  it.effect(
    "in every policy setting; what is not tag:, server: or a resource type is refused, naming the pattern",
    () =>
      Effect.gen(function* () {
        const settings = yield* load({
          SVC_CONFIRM: "svc_delete:*,*@tag:production,svc_execute:*@server:prod-*",
          SVC_DENY: "svc_execute:destroy_*@stack:prod-*",
          SVC_ALLOW: "*:*",
        })
        expect(settings.confirm.map((p) => [p.text, p.touches?._tag])).toEqual([
          ["svc_delete:*", undefined],
          ["*@tag:production", "Tag"],
          ["svc_execute:*@server:prod-*", "Server"],
        ])
        expect(settings.deny[0]?.touches).toMatchObject({ _tag: "Resource", type: "stack" })
        for (const bad of ["*@tag:", "*@planet:mars", "svc_delete@tag:x", "*@tag:a b", "*@tag:x@tag:y"]) {
          const refused = yield* Effect.flip(load({ SVC_CONFIRM: bad }))
          expect(refused.message).toContain(JSON.stringify(bad))
        }
      }),
  )

  it.effect("SVC_DENY with @ leaves the selector listed: it is decided when the call is made", () =>
    Effect.gen(function* () {
      const settings = yield* load({ SVC_DENY: "svc_execute:deploy_stack@tag:production" })
      const policy = yield* Policy.make({ ...Settings.DEFAULT_SETTINGS, ...settings })
      const execute = policy.tools.find((t) => t.name === "svc_execute")
      expect(execute?.selectors).toContain("deploy_stack")
      expect(policy.atCall(Definitions.svc_execute, "deploy_stack").deny.map((p) => p.text)).toEqual([
        "svc_execute:deploy_stack@tag:production",
      ])
      expect(policy.atCall(Definitions.svc_execute, "restart_stack")).toEqual({ deny: [], allowOnly: undefined })
    }),
  )
})

describe("a call's targets, from its params", () => {
  it("each param that names a resource of its type is read as one, by the id or name given", () =>
    FastCheck.assert(
      FastCheck.property(
        // In the order of the table of kinds (Kinds/Kinds.ts), as they are read.
        FastCheck.subarray(["stack", "build", "server", "procedure", "deployment", "sync", "action", "repo", "swarm"], {
          minLength: 1,
        }),
        FastCheck.stringMatching(/^[a-z0-9-]{1,16}$/),
        (keys, name) => {
          const body = Object.fromEntries(keys.map((key) => [key, `${key}-${name}`]))
          expect(Targets.refsOf("", body, "Anything")).toEqual(
            keys.map((key) => ({ type: key, key: `${key}-${name}` })),
          )
        },
      ),
    ))

  it("a change of a resource names it by id; a ResourceTarget by its type; a batch's kind by its endpoint", () => {
    expect(Targets.refsOf("stack", { id: "web", config: {} }, "UpdateStack")).toEqual([{ type: "stack", key: "web" }])
    expect(Targets.refsOf("sync_resource", { id: "s" }, "DeleteResourceSync")).toEqual([{ type: "sync", key: "s" }])
    expect(
      Targets.refsOf("resource_meta", { target: { type: "ResourceSync", id: "s" } }, "UpdateResourceMeta"),
    ).toEqual([{ type: "sync", key: "s" }])
    // A create names a resource that is not there yet: it is not read, but touched as it will be.
    expect(Targets.refsOf("stack", { id: "x", name: "web" }, "CreateStack")).toEqual([])
    expect(
      [
        "BatchDeployStackIfChanged",
        "BatchDeploy",
        "BatchRunBuild",
        "BatchCloneRepo",
        "BatchBuildRepo",
        "DeployStack",
      ].map(Targets.batchKind),
    ).toEqual(["stack", "deployment", "build", "repo", "repo", undefined])
  })

  it("what could not be read counts as matching any @ part, and says so", () => {
    const touch = Touches.parse("tag:production")
    if (Either.isLeft(touch)) throw new Error(touch.left)
    const resolved = {
      targets: [{ type: "stack", name: "db", tags: ["staging"] }],
      unread: ['stack "web" could not be read (timeout)'],
    }
    expect(Targets.touched(touch.right, resolved)).toEqual([
      'stack "web" could not be read (timeout): counted as matching',
    ])
    expect(Targets.touched(touch.right, { ...resolved, unread: [] })).toEqual([])
  })
})

describe("@swarm:", () => {
  it("parses as a swarm and everything on it, in every policy setting; its name matches as a glob", () => {
    const parsed = Touches.split("svc_execute:*@swarm:edge-*")
    if (Either.isLeft(parsed)) throw new Error(parsed.left)
    expect(parsed.right.touch).toMatchObject({ _tag: "Swarm", text: "swarm:edge-*" })
    expect(parsed.right.touch?.name.test("edge-swarm")).toBe(true)
    expect(parsed.right.touch?.name.test("core-swarm")).toBe(false)
  })

  it.scopedLive("a stack on the swarm and a call on the swarm itself touch it; a stack elsewhere does not", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const swarm = sandbox.world.store.find("swarm", "edge-swarm")
      sandbox.world.store.find("stack", "web").config.swarm_id = swarm.id
      const touch = Touches.parse("swarm:edge-*")
      if (Either.isLeft(touch)) throw new Error(touch.left)
      const touched = (selector: string, endpoint: string, body: Record<string, unknown>) =>
        Effect.map(Targets.resolve({ selector, endpoint, body }), (resolved) => Targets.touched(touch.right, resolved))
      yield* Effect.gen(function* () {
        expect(yield* touched("deploy_stack", "execute/DeployStack", { stack: "web" })).toEqual([
          'stack "web" is on the swarm "edge-swarm"',
        ])
        expect(yield* touched("deploy_stack", "execute/DeployStack", { stack: "staging-web" })).toEqual([])
        expect(
          yield* touched("remove_swarm_stacks", "execute/RemoveSwarmStacks", { swarm: "edge-swarm", stacks: ["x"] }),
        ).toEqual(['it acts on the swarm "edge-swarm"'])
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})

describe("@builder:", () => {
  it("parses as a builder and everything built on it; its name matches as a glob", () => {
    const parsed = Touches.split("svc_execute:*@builder:local-*")
    if (Either.isLeft(parsed)) throw new Error(parsed.left)
    expect(parsed.right.touch).toMatchObject({ _tag: "Builder", text: "builder:local-*" })
    expect(parsed.right.touch?.name.test("local-builder")).toBe(true)
    expect(parsed.right.touch?.name.test("remote-builder")).toBe(false)
  })

  it.scopedLive(
    "a build or repo built on the builder, a batch's matches and the builder itself touch it; others do not",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const touch = Touches.parse("builder:local-*")
        if (Either.isLeft(touch)) throw new Error(touch.left)
        const touched = (selector: string, endpoint: string, body: Record<string, unknown>) =>
          Effect.map(Targets.resolve({ selector, endpoint, body }), (resolved) =>
            Targets.touched(touch.right, resolved),
          )
        yield* Effect.gen(function* () {
          expect(yield* touched("run_build", "execute/RunBuild", { build: "api-image" })).toEqual([
            'build "api-image" builds on the builder "local-builder"',
          ])
          expect(yield* touched("build_repo", "execute/BuildRepo", { repo: "api-source" })).toEqual([
            'repo "api-source" builds on the builder "local-builder"',
          ])
          // A repo with no builder, and a stack, build on none.
          expect(yield* touched("pull_repo", "execute/PullRepo", { repo: "infra" })).toEqual([])
          expect(yield* touched("deploy_stack", "execute/DeployStack", { stack: "web" })).toEqual([])
          expect(yield* touched("batch_run_build", "execute/BatchRunBuild", { pattern: "*-image" })).toEqual([
            'build "api-image" builds on the builder "local-builder"',
            'build "docs-image" builds on the builder "local-builder"',
          ])
          expect(yield* touched("builder", "write/UpdateBuilder", { id: "local-builder", config: {} })).toEqual([
            'it acts on the builder "local-builder"',
          ])
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )
})

describe("where a change puts a resource", () => {
  it.scopedLive(
    "a new resource named onto a server by `server`, `server_id`'s alias, and a resource moved there, touch it",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const prod = sandbox.world.store.find("server", "prod-01")
        const touch = Touches.parse("server:prod-*")
        if (Either.isLeft(touch)) throw new Error(touch.left)
        const touched = (selector: string, endpoint: string, body: Record<string, unknown>) =>
          Effect.map(Targets.resolve({ selector, endpoint, body }), (resolved) =>
            Targets.touched(touch.right, resolved),
          )
        yield* Effect.gen(function* () {
          // The partial config takes `server` for `server_id` (service-api.schema.json: _PartialDeploymentConfig).
          expect(
            yield* touched("deployment", "write/CreateDeployment", { name: "x", config: { server: "prod-01" } }),
          ).toEqual(['deployment "x" is on the server "prod-01"'])
          expect(
            yield* touched("deployment", "write/CreateDeployment", { name: "x", config: { server_id: prod.id } }),
          ).toEqual(['deployment "x" is on the server "prod-01"'])
          // legacy-cron is on staging-01: moved to prod-01, by id or by the alias, it will be on it.
          for (const config of [{ server_id: prod.id }, { server: "prod-01" }]) {
            expect(yield* touched("deployment", "write/UpdateDeployment", { id: "legacy-cron", config })).toEqual([
              'deployment "legacy-cron" is on the server "prod-01"',
            ])
          }
          // A change that leaves it where it is touches no other server.
          expect(
            yield* touched("deployment", "write/UpdateDeployment", { id: "legacy-cron", config: { image: "x" } }),
          ).toEqual([])
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )
})
