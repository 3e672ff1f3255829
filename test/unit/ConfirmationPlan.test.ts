/**
 * The plan a confirmation question shows, read from the sandbox just before
 * asking: the record a delete removes, the names a batch's pattern matches now
 * (the very ones the service then runs), the changes a sync applies. A failed
 * read is said in a sentence.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as FastCheck from "fast-check"
import { compile, entries } from "../../src/Confirmation/Pattern.js"
import * as Plan from "../../src/Confirmation/Plan.js"
import { tomlName } from "../../src/Confirmation/SyncChanges.js"
import { SvcClient } from "../../src/SvcClient.js"
import * as Layers from "../support/Layers.js"
import * as Sandboxes from "../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read the service's JSON answers field by field
type Any = any

const plan = (tool: string, selector: string, params: Record<string, unknown>) =>
  Effect.map(Plan.make(tool, selector, params), Option.getOrThrow)

const call = (group: "read" | "write" | "execute", endpoint: string, params: object) =>
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params)) as Effect.Effect<Any, Any, SvcClient>

describe("the plan of a confirmation question", () => {
  it.scopedLive("a delete names the record, and for a stack or deployment its server and state", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const web = yield* plan("svc_delete", "stack", { id: "web" })
        expect(web.text).toBe('This deletes the stack "web" (on server "prod-01", now running).')
        expect(web.plan).toEqual({
          _tag: "Delete",
          kind: "stack",
          target: "web",
          record: Either.right({ name: "web", server: "prod-01", state: "running" }),
        })
        // By id, as the service also takes it.
        const cron = (yield* call("read", "ListDeployments", {})).find((d: Any) => d.name === "legacy-cron")
        expect((yield* plan("svc_delete", "deployment", { id: cron.id })).text).toBe(
          'This deletes the deployment "legacy-cron" (on server "staging-01", now exited).',
        )
        expect((yield* plan("svc_delete", "tag", { id: "production" })).text).toBe('This deletes the tag "production".')
        expect((yield* plan("svc_delete", "variable", { name: "LOG_LEVEL" })).text).toBe(
          'This deletes the variable "LOG_LEVEL".',
        )
        expect((yield* plan("svc_delete", "user_group", { id: "operators" })).text).toBe(
          'This deletes the user group "operators".',
        )
        expect((yield* plan("svc_delete", "sync_resource", { id: "estate-sync" })).text).toBe(
          'This deletes the sync resource "estate-sync".',
        )
        // A read that fails is said, with the service's words.
        const missing = yield* plan("svc_delete", "stack", { id: "nope" })
        expect(missing.text).toBe(
          'The stack "nope" could not be read before asking (read/GetStack failed: the service answered 500: did not find any Stack matching nope), so what it is cannot be shown.',
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive("a batch lists the names its pattern matches now: exactly those the service then runs", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const stacks = (yield* call("read", "ListStacks", {})) as Array<Any>
        const nameOf = new Map(stacks.map((s) => [s.id, s.name]))
        const cases: Array<[Record<string, unknown>, Array<string>]> = [
          [{ pattern: "*web" }, ["web", "staging-web"]],
          [{ pattern: "*web", tags: ["production"] }, ["web"]],
          [{ pattern: "monitoring,\n staging-*" }, ["monitoring", "staging-web"]],
          [{ pattern: "we?" }, ["web"]],
          [{ pattern: "\\^staging-\\" }, ["staging-web"]],
          [{ pattern: stacks[0].id }, []],
          [{ pattern: "nothing-*" }, []],
        ]
        for (const [params, expected] of cases) {
          const planned = yield* plan("svc_execute", "batch_deploy_stack", params)
          const names = Either.getOrThrow((planned.plan as Plan.BatchPlan).matches)
          expect([...names].sort(), JSON.stringify(params)).toEqual([...expected].sort())
          const ran = (yield* call("execute", "BatchDeployStack", params)) as Array<Any>
          expect(ran.map((r) => nameOf.get(r.data.target.id)).sort(), JSON.stringify(params)).toEqual(
            [...expected].sort(),
          )
        }
        expect((yield* plan("svc_execute", "batch_deploy_stack", { pattern: "*web", tags: ["production"] })).text).toBe(
          'BatchDeployStack with the pattern "*web" and the tags "production" matches 1 stack now: web. The service runs only those of them that the user may execute.',
        )
        expect((yield* plan("svc_execute", "batch_run_build", { pattern: "*-image" })).text).toBe(
          'BatchRunBuild with the pattern "*-image" matches 2 builds now: api-image, docs-image. The service runs only those of them that the user may execute.',
        )
        expect((yield* plan("svc_execute", "batch_deploy", { pattern: "nothing-*" })).text).toBe(
          'BatchDeploy with the pattern "nothing-*" matches no deployment now: nothing would run.',
        )
        expect((yield* plan("svc_execute", "batch_run_procedure", { pattern: "\\(\\" })).text).toBe(
          'What BatchRunProcedure with the pattern "\\\\(\\\\" matches could not be read before asking (the regex \\(\\ cannot be read here; the service decides what it matches).',
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive("a sync run shows its pending changes with their commit; once run, nothing is pending", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const before = yield* plan("svc_execute", "run_sync", { sync: "estate-sync" })
        expect(before.text).toBe(
          [
            'Running the sync "estate-sync" applies the changes pending from commit c41e7d2 ("Move the cache to its own stack; retire legacy-cron"), as of its last refresh:',
            "- resources: create Stack cache; update Stack web, Build docs-image; delete Deployment legacy-cron",
            "- variables: create CACHE_SIZE; update LOG_LEVEL",
            "- user groups: update developers",
            "- deploys: Stack web (config changed)",
          ].join("\n"),
        )
        const limited = yield* plan("svc_execute", "run_sync", {
          sync: "estate-sync",
          resource_type: "Stack",
          resources: ["web"],
        })
        expect(limited.text).toBe(`${before.text}\nThis call limits the run to Stack resources: web.`)
        const update = yield* call("execute", "RunSync", { sync: "estate-sync" })
        for (let i = 0; i < 100; i++) {
          if ((yield* call("read", "GetUpdate", { id: update._id.$oid })).status === "Complete") break
          yield* Effect.sleep("20 millis")
        }
        expect((yield* plan("svc_execute", "run_sync", { sync: "estate-sync" })).text).toBe(
          'Running the sync "estate-sync" has nothing pending to apply, as of its last refresh.',
        )
        expect((yield* plan("svc_execute", "run_sync", { sync: "gone" })).text).toBe(
          'The sync "gone" could not be read before asking (read/GetResourceSync failed: the service answered 500: did not find any ResourceSync matching gone), so its pending changes cannot be shown.',
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive("other calls have no plan; an unreachable service is said", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      const config = Sandboxes.apiKeyConfig(sandbox)
      yield* Effect.promise(() => sandbox.close())
      yield* Effect.gen(function* () {
        expect(yield* Plan.make("svc_execute", "deploy_stack", { stack: "web" })).toEqual(Option.none())
        expect(yield* Plan.make("svc_update", "stack", { id: "web", config: {} })).toEqual(Option.none())
        const down = yield* plan("svc_delete", "build", { id: "api-image" })
        expect(down.text).toMatch(
          /^The build "api-image" could not be read before asking \(read\/GetBuild could not reach the service/,
        )
      }).pipe(Effect.provide(Layers.client(config)))
    }),
  )
})

describe("a batch pattern", () => {
  const name = FastCheck.stringMatching(/^[a-z0-9-]{1,12}$/)

  it.prop(
    "a name always matches itself, and never a name it is not (wildcards aside)",
    { a: name, b: name },
    ({ a, b }) => {
      const test = Either.getOrThrow(compile(a))
      expect(test(a)).toBe(true)
      expect(test(b)).toBe(a === b)
    },
  )

  it.prop(
    "entries are split on commas and newlines and trimmed; any entry matching is a match",
    { names: FastCheck.array(name, { minLength: 1, maxLength: 4 }), probe: name },
    ({ names, probe }) => {
      const pattern = names.map((n, i) => (i % 2 === 0 ? ` ${n} ` : `\n${n}`)).join(",")
      expect(entries(pattern)).toEqual(names)
      expect(Either.getOrThrow(compile(pattern))(probe)).toBe(names.includes(probe))
    },
  )

  it("reads the TOML name of a diff", () => {
    expect(tomlName('[[stack]]\nname = "web"\n')).toBe("web")
    expect(tomlName("[[variable]]\nname = 'LOG_LEVEL'\nvalue = \"x\"")).toBe("LOG_LEVEL")
    expect(tomlName('[[stack]]\nname = "a\\"b"')).toBe('a"b')
    expect(tomlName('[[stack]]\nserver = "x"')).toBeUndefined()
  })
})
