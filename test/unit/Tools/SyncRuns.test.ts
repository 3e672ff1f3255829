/**
 * A run kept from changing who may do what reads whole what it decides on, or refuses: a sync's
 * plan whose group changes lie past the answer cap (a file past it before them) is read past it;
 * one past the check's own bound refuses, saying why. A procedure's stages are read to any depth,
 * each procedure once (cycles, diamonds), a batch as each of its matches, a procedure whose stages
 * pass the cap read whole; past MAX_PROCEDURES, or unread, the run is refused. Against the sandbox.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Config from "../../../src/Config.js"
import type * as Sandbox from "../../../src/Sandbox/Server.js"
import type * as Settings from "../../../src/Settings/ToolSettings.js"
import type * as PatternReader from "../../../src/Shared/PatternReader.js"
import { SvcClient } from "../../../src/SvcClient.js"
import { syncRefusal } from "../../../src/Tools/Policy/AccessChanges.js"
import { MAX_PROCEDURES, MAX_SYNCS } from "../../../src/Tools/Policy/SyncRuns.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read the service's JSON answers field by field
type Any = any

/**
 * The answer cap of these tests, a tenth of the default (2,000,000 bytes, test/unit/Service/CutJson.test.ts):
 * the same bounds crossed with a tenth the bytes.
 */
const CAP = 200_000

/** Past the answer cap, and so placed before what a check needs. */
const BIG = 210_000

/** A TOML file of BIG bytes that declares nothing: one comment. */
const BIG_FILE = `# ${"x".repeat(BIG)}\n`

const inSandbox = <A, E>(
  body: (sandbox: Sandbox.Sandbox) => Effect.Effect<A, E, SvcClient | PatternReader.PatternReader>,
  config: Partial<Config.SvcConfigShape> = { maxAnswerBytes: CAP },
) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandboxes.scoped()
    return yield* body(sandbox).pipe(Effect.provide(Layers.client({ ...Sandboxes.apiKeyConfig(sandbox), ...config })))
  })

const refusal = (endpoint: string, params: Record<string, unknown>, mode: Settings.Mode = "operate") =>
  Effect.flatMap(SvcClient, (client) => syncRefusal(client, endpoint, params, { mode }, (name) => name))

const call = (group: "read" | "write" | "execute", endpoint: string, params: object) =>
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params)) as Effect.Effect<Any, Any, SvcClient>

const writeFile = (file_path: string, contents: string) =>
  call("write", "WriteSyncFileContents", { sync: "estate-sync", resource_path: "", file_path, contents })

/** The sync's files: a group made open to everyone, which a run would apply. */
const OPEN_DEVELOPERS = '[[user_group]]\nname = "developers"\neveryone = true\n'

const addBigFile = writeFile("padding.toml", BIG_FILE)

const stage = (name: string, ...executions: ReadonlyArray<Record<string, unknown>>) => ({
  name,
  enabled: true,
  executions: executions.map((execution) => ({ enabled: true, execution })),
})
const runSync = (sync = "estate-sync") => ({ type: "RunSync", params: { sync } })
const runProcedure = (procedure: string) => ({ type: "RunProcedure", params: { procedure } })
const procedure = (name: string, ...stages: ReadonlyArray<Record<string, unknown>>) =>
  call("write", "CreateProcedure", { name, config: { stages } })

describe("a sync's run, on a plan past the answer cap", () => {
  it.scopedLive("its group changes past the cap are read whole: refused before and after a file past the cap", () =>
    inSandbox(() =>
      Effect.gen(function* () {
        yield* writeFile("access.toml", OPEN_DEVELOPERS)
        expect(yield* refusal("RunSync", { sync: "estate-sync" })).toContain('touch user groups (update "developers")')
        yield* addBigFile
        // What the answer cap shows of the fresh plan: the files' text, and no group change after it.
        const shown = yield* Effect.flatMap(SvcClient, (client) =>
          client.answer("write", "RefreshResourceSyncPending", { sync: "estate-sync" }),
        )
        expect(shown.cut).toBe(CAP)
        expect((shown.value as Any).info.user_group_updates ?? []).toEqual([])
        // The check reads it whole.
        expect(yield* refusal("RunSync", { sync: "estate-sync" })).toContain('touch user groups (update "developers")')
        expect(yield* refusal("CommitSync", { sync: "estate-sync" })).toContain('"developers"')
        expect(yield* refusal("RunSync", { sync: "estate-sync" }, "full")).toBeUndefined()
      }),
    ),
  )

  it.scopedLive("past the check's own bound (ten answer caps), the run is refused, saying why", () =>
    inSandbox(
      () =>
        Effect.gen(function* () {
          yield* writeFile("access.toml", OPEN_DEVELOPERS)
          yield* addBigFile
          const refused = yield* refusal("RunSync", { sync: "estate-sync" })
          expect(refused).toContain("could not be read whole first")
          expect(refused).toContain(
            "write/RefreshResourceSyncPending answered 200 with a body too long to read whole: past 200000 bytes (10 times SVC_MAX_ANSWER_BYTES)",
          )
          expect(refused).toContain("operate mode (SVC_MODE)")
        }),
      { maxAnswerBytes: CAP / 10 },
    ),
  )
})

describe("a procedure's run, its stages read whole to any depth", () => {
  it.scopedLive("five procedures down, through a cycle and a diamond, each read once; a batch as its matches", () =>
    inSandbox(() =>
      Effect.gen(function* () {
        yield* procedure("p5", stage("sync", runSync()))
        for (const n of [4, 3, 2, 1]) yield* procedure(`p${n}`, stage("next", runProcedure(`p${n + 1}`)))
        expect(yield* refusal("RunProcedure", { procedure: "p1" })).toContain(
          'a stage runs the sync "estate-sync", and the sync\'s pending changes touch user groups (update "developers")',
        )
        // A cycle that runs no sync ends, and is sent.
        yield* procedure("ping", stage("one", runProcedure("pong")))
        yield* procedure("pong", stage("one", runProcedure("ping")), stage("two", { type: "Sleep", params: {} }))
        expect(yield* refusal("RunProcedure", { procedure: "ping" })).toBeUndefined()
        // A diamond (both sides run p5), by name and by id.
        const p5 = (yield* call("read", "GetProcedure", { procedure: "p5" }))._id.$oid as string
        yield* procedure("left", stage("l", runProcedure("p5")))
        yield* procedure("right", stage("r", runProcedure(p5)))
        yield* procedure("top", stage("both", runProcedure("left"), runProcedure("right"), runProcedure("ping")))
        expect(yield* refusal("RunProcedure", { procedure: "top" })).toContain('"developers"')
        // A batch: each procedure its pattern matches.
        expect(yield* refusal("BatchRunProcedure", { pattern: "p3" })).toContain('"developers"')
        expect(yield* refusal("BatchRunProcedure", { pattern: "\\^p[0-9]$\\" })).toContain('"developers"')
        expect(yield* refusal("BatchRunProcedure", { pattern: "ping, pong" })).toBeUndefined()
        // A batch as a stage of a procedure.
        yield* procedure("batcher", stage("b", { type: "BatchRunProcedure", params: { pattern: "left" } }))
        expect(yield* refusal("RunProcedure", { procedure: "batcher" })).toContain('"developers"')
        // A stage's disabled run is not what the run does.
        yield* call("write", "CreateProcedure", {
          name: "off",
          config: { stages: [{ ...stage("x", runProcedure("p1")), enabled: false }] },
        })
        expect(yield* refusal("RunProcedure", { procedure: "off" })).toBeUndefined()
        expect(yield* refusal("RunProcedure", { procedure: "p1" }, "full")).toBeUndefined()
      }),
    ),
  )

  it.scopedLive("one that cannot be read is refused, and so is one past MAX_PROCEDURES or MAX_SYNCS, saying so", () =>
    inSandbox(() =>
      Effect.gen(function* () {
        const missing = yield* refusal("RunProcedure", { procedure: "no-such-procedure" })
        expect(missing).toContain('the procedure "no-such-procedure" could not be read whole')
        expect(missing).toContain("whether they change user groups is unknown")
        yield* procedure(`chain-${MAX_PROCEDURES + 1}`, stage("end", { type: "Sleep", params: {} }))
        for (let n = MAX_PROCEDURES; n >= 1; n--)
          yield* procedure(`chain-${n}`, stage("next", runProcedure(`chain-${n + 1}`)))
        // MAX_PROCEDURES of them are read; one more is refused, not sent unread.
        expect(yield* refusal("RunProcedure", { procedure: "chain-2" })).toBeUndefined()
        expect(yield* refusal("RunProcedure", { procedure: "chain-1" })).toContain(
          `its procedures run more than ${MAX_PROCEDURES} procedures, the most read to check them`,
        )
        // And one whose stages run more syncs than MAX_SYNCS: refused before any plan is read.
        const syncs = Array.from({ length: MAX_SYNCS + 1 }, (_, n) => runSync(`sync-${n}`))
        yield* procedure("many-syncs", stage("all", ...syncs))
        expect(yield* refusal("RunProcedure", { procedure: "many-syncs" })).toContain(
          `its procedures run more than ${MAX_SYNCS} syncs, the most whose plans are read to check them`,
        )
      }),
    ),
  )

  it.scopedLive("a stage's name past the cap before the sync's run: read whole, refused; past the bound, refused", () =>
    Effect.gen(function* () {
      const padded = (sandbox: Sandbox.Sandbox) =>
        Effect.gen(function* () {
          yield* procedure("padded", stage("x".repeat(BIG), { type: "Sleep", params: {} }), stage("sync", runSync()))
          expect(yield* call("read", "GetProcedure", { procedure: "padded" })).toBeDefined()
          return sandbox
        })
      yield* inSandbox((sandbox) =>
        Effect.gen(function* () {
          yield* padded(sandbox)
          expect(yield* refusal("RunProcedure", { procedure: "padded" })).toContain('"developers"')
        }),
      )
      yield* inSandbox(
        (sandbox) =>
          Effect.gen(function* () {
            yield* padded(sandbox)
            const refused = yield* refusal("RunProcedure", { procedure: "padded" })
            expect(refused).toContain('the procedure "padded" could not be read whole')
            expect(refused).toContain("too long to read whole")
          }),
        { maxAnswerBytes: CAP / 10 },
      )
    }),
  )
})
