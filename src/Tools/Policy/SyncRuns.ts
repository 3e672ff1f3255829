/**
 * What a sync's run or commit, or a procedure's run (alone or in a batch), would apply, read to
 * decide whether SVC_ACCESS_CHANGES refuses it (AccessChanges.ts). Every read is made whole, past
 * the answer cap (SvcClient's "whole" reading): the cap bounds what a result shows, not what a
 * check needs, and a check that cannot read whole refuses, saying why. A sync's plan is computed
 * afresh; a procedure's stages are read to any depth, each procedure once (a cycle or a diamond
 * is read once), a batch of procedures as each of its matches, up to MAX_PROCEDURES.
 */
import * as Effect from "effect/Effect"
import { isObject } from "../../Shared/JsonShape.js"
import * as NamePattern from "../../Shared/NamePattern.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
import type { SvcClientShape } from "../../SvcClient.js"
import { diff, list, record, text } from "../Sync/SyncChanges.js"

/** The endpoints whose run applies, or whose commit writes, the sync's pending plan. */
const SYNC_RUNS: ReadonlySet<string> = new Set(["RunSync", "CommitSync"])

/** The endpoints that run procedures, whose stages may run a sync. */
const PROCEDURE_RUNS: ReadonlySet<string> = new Set(["RunProcedure", "BatchRunProcedure"])

/**
 * The most procedures one call's check reads (docs/team.md): a call whose procedures run more,
 * through their stages and batches, is refused, never sent unread.
 */
export const MAX_PROCEDURES = 100

/** The most syncs one call's check reads the plans of, by the same rule. */
export const MAX_SYNCS = 100

/** A name from a sync's files or record as a refusal shows it: on one line, quoted, cut to a length. */
const quoted = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)

/** A list of what a refusal names: the first few, and how many more. */
const listed = (items: ReadonlyArray<string>, shown = 5): string =>
  `${items.slice(0, shown).join(", ")}${items.length > shown ? ` and ${items.length - shown} more` : ""}`

/** The sync a run or commit names: `sync`, or (CommitSync) `id` or `name`. */
const syncOf = (params: unknown): string | undefined => {
  const p = record(params)
  return text(p.sync) ?? text(p.id) ?? text(p.name)
}

/** The user groups a sync's record's pending plan creates, updates or deletes, each after its change. */
const groupsPending = (sync: unknown): ReadonlyArray<string> =>
  list(record(record(sync).info).user_group_updates).flatMap((update) => {
    const d = diff(update)
    return d === undefined ? [] : [`${d.kind.toLowerCase()} ${quoted(d.name ?? "(unnamed)")}`]
  })

/**
 * Why a sync's run or commit is refused while access changes are kept away: the user groups its
 * pending plan changes, or that the plan could not be read whole. The plan is computed afresh first
 * (RefreshResourceSyncPending, which changes nothing of the estate), as the run computes its own
 * from the files: a plan as of an older refresh may not show what the files declare now.
 */
const pendingRefusal = (client: SvcClientShape, sync: string, words: string): Effect.Effect<string | undefined> =>
  client.call("write", "RefreshResourceSyncPending", { sync }, "whole").pipe(
    Effect.flatMap((refreshed) =>
      isObject(refreshed) && isObject(refreshed.info)
        ? Effect.succeed(refreshed)
        : client.call("read", "GetResourceSync", { sync }, "whole"),
    ),
    Effect.map((read) => {
      const error = text(record(record(read).info).pending_error)
      if (error !== undefined)
        return `the sync's pending changes could not be computed, so whether they change user groups is unknown: ${words}`
      const groups = groupsPending(read)
      return groups.length === 0
        ? undefined
        : `the sync's pending changes touch user groups (${listed(groups)}): ${words}`
    }),
    Effect.catchAll((error) =>
      Effect.succeed(
        `the sync's pending changes could not be read whole first (${error.message}), so whether they change user groups is unknown: ${words}`,
      ),
    ),
  )

/** The executions a procedure's enabled stages run, as the definitions give them. */
const executionsOf = (procedure: unknown): ReadonlyArray<Record<string, unknown>> =>
  list(record(record(procedure).config).stages)
    .filter((stage) => record(stage).enabled !== false)
    .flatMap((stage) => [...list(record(stage).executions), ...list(record(stage).execution)])
    .filter((execution) => record(execution).enabled !== false)
    .map((execution) => record(record(execution).execution))

/** One call's walk through the procedures it runs: those read (by every name they go by), and the syncs found. */
interface Walk {
  readonly seen: Set<string>
  readonly syncs: Set<string>
  /** The actions a stage runs (a batch's by its pattern), whose scripts act with the service's credentials. */
  readonly actions: Set<string>
  reads: number
}

/** The procedures a batch's pattern (and tags) matches now, by name, read as the confirmation's plan reads them. */
const matchesOf = (
  client: SvcClientShape,
  params: unknown,
): Effect.Effect<ReadonlyArray<string>, string, PatternReader> => {
  const p = record(params)
  const pattern = typeof p.pattern === "string" ? p.pattern : ""
  const tags = list(p.tags).filter((t): t is string => typeof t === "string")
  return client
    .call("read", "ListProcedures", { ...(tags.length === 0 ? {} : { query: { tags } }), limit: 0 }, "whole")
    .pipe(
      Effect.mapError((error) => `the procedures a batch matches could not be read whole (${error.message})`),
      Effect.map((items) =>
        list(items)
          .map((item) => text(record(item).name))
          .filter((name): name is string => name !== undefined),
      ),
      Effect.flatMap((names) =>
        NamePattern.select(pattern, names).pipe(
          Effect.flatMap((selected) =>
            selected._tag === "Refused"
              ? Effect.fail(`the batch's pattern is refused (${NamePattern.said(selected)})`)
              : Effect.succeed(selected.matched.flatMap((i) => names[i] ?? [])),
          ),
        ),
      ),
    )
}

/** What one execution of a stage leads to: a sync it runs, or the procedures it runs in turn. */
const follow = (
  client: SvcClientShape,
  walk: Walk,
  execution: Record<string, unknown>,
): Effect.Effect<void, string, PatternReader> => {
  const { type, params } = execution
  if (type === "RunSync" || type === "CommitSync") {
    const sync = syncOf(params)
    if (sync !== undefined) walk.syncs.add(sync)
    return walk.syncs.size > MAX_SYNCS
      ? Effect.fail(`its procedures run more than ${MAX_SYNCS} syncs, the most whose plans are read to check them`)
      : Effect.void
  }
  if (type === "RunAction" || type === "BatchRunAction") {
    const p = record(params)
    walk.actions.add(quoted(text(p.action) ?? `matching ${text(p.pattern) ?? ""}`))
    return Effect.void
  }
  if (type === "RunProcedure") {
    const nested = text(record(params).procedure)
    return nested === undefined ? Effect.void : walkProcedure(client, walk, nested)
  }
  if (type === "BatchRunProcedure")
    return Effect.flatMap(matchesOf(client, params), (names) =>
      Effect.forEach(names, (name) => walkProcedure(client, walk, name), { discard: true }),
    )
  return Effect.void
}

/** A procedure, read whole once, and what its stages run; a failure says why the call is refused. */
const walkProcedure = (
  client: SvcClientShape,
  walk: Walk,
  procedure: string,
): Effect.Effect<void, string, PatternReader> =>
  Effect.suspend(() => {
    if (walk.seen.has(procedure)) return Effect.void
    walk.seen.add(procedure)
    walk.reads++
    if (walk.reads > MAX_PROCEDURES)
      return Effect.fail(`its procedures run more than ${MAX_PROCEDURES} procedures, the most read to check them`)
    return client.call("read", "GetProcedure", { procedure }, "whole").pipe(
      Effect.mapError((error) => `the procedure ${quoted(procedure)} could not be read whole (${error.message})`),
      Effect.flatMap((read) => {
        const r = record(read)
        // The same procedure by another name it goes by (its id, its name) is read once.
        const names = [text(record(r._id).$oid), text(r.name)].filter((n): n is string => n !== undefined)
        if (names.some((name) => name !== procedure && walk.seen.has(name))) return Effect.void
        for (const name of names) walk.seen.add(name)
        return Effect.forEach(executionsOf(read), (execution) => follow(client, walk, execution), { discard: true })
      }),
    )
  })

/**
 * Why a run is refused while access changes are kept away (`words` says by which setting), if it
 * is: a sync's run or commit, on its pending plan; a procedure's run, or a batch's, for each sync
 * its procedures' stages run; or that what it runs could not be read whole. Undefined for any
 * other endpoint. For a minted person (`minted`), a procedure whose stages run an action is
 * refused too: the action's script acts with the service's own credentials.
 */
export const runRefusal = (
  client: SvcClientShape,
  endpoint: string,
  params: Readonly<Record<string, unknown>>,
  words: string,
  minted = false,
): Effect.Effect<string | undefined, never, PatternReader> => {
  if (SYNC_RUNS.has(endpoint)) return pendingRefusal(client, syncOf(params) ?? "", words)
  if (!PROCEDURE_RUNS.has(endpoint)) return Effect.succeed(undefined)
  const walk: Walk = { seen: new Set(), syncs: new Set(), actions: new Set(), reads: 0 }
  const execution = { type: endpoint, params }
  return follow(client, walk, execution).pipe(
    Effect.flatMap(() =>
      minted && walk.actions.size > 0
        ? Effect.succeed(
            `a stage runs the action ${listed([...walk.actions])}, whose script acts with the service's own credentials and may change who may do what: ${words}`,
          )
        : Effect.reduce(walk.syncs, undefined as string | undefined, (found, sync) =>
            found !== undefined
              ? Effect.succeed(found)
              : Effect.map(pendingRefusal(client, sync, words), (reason) =>
                  reason === undefined ? undefined : `a stage runs the sync ${quoted(sync)}, and ${reason}`,
                ),
          ),
    ),
    Effect.catchAll((why) => Effect.succeed(`${why}, so whether they change user groups is unknown: ${words}`)),
  )
}
