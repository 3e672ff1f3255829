/**
 * The reads made beside an answer, each once: the names its view shows, the first line its own
 * findings make (an execution answered at once, an empty log, a server that cannot be reached),
 * and what a change answered with nothing now holds (read back). Which of them an answer gets is
 * its endpoint's entry in the table of reads beside an answer (Records/ReadsBeside.ts), looked up
 * once by the tools' program and given here.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { isObject } from "../Shared/JsonShape.js"
import type { Group, SvcClientShape } from "../SvcClient.js"
import type { Invocation, ToolSuccess } from "./Invocation.js"
import { type NameMaps, type Names, unreachableOf } from "./Names/Names.js"
import { isEmptyLog } from "./Records/EmptyLog.js"
import * as Execution from "./Records/Execution.js"
import * as Listed from "./Records/Listed.js"
import { isNothing, type ReadBack } from "./Records/ReadBack.js"
import type { ReadsBeside } from "./Records/ReadsBeside.js"
import * as Stale from "./Records/Stale.js"
import * as View from "./View.js"

const NO_NAMES: Effect.Effect<NameMaps | undefined> = Effect.succeed(undefined)

const NO_LINE: Effect.Effect<string | undefined> = Effect.succeed(undefined)

/**
 * The names the rendered answer will show, as its view needs them: a list's rows those its name
 * columns lack, a record's or an execution's glance those of its ids, `fields` those of the
 * resources' ids kept. None for a whole answer, or where names are off (`Names.layerOff`); most
 * answers show no ids to name, and read nothing.
 */
export const namesFor = (
  view: View.View,
  invocation: Invocation,
  data: unknown,
  names: Context.Tag.Service<Names>,
): Effect.Effect<NameMaps | undefined> => {
  if (Option.isNone(names)) return NO_NAMES
  const kinds = View.kindsOf(view, data, invocation.body)
  return kinds.length === 0 ? NO_NAMES : names.value.lookup(kinds)
}

/**
 * The names shown, and the list item of the record or the execution's target where its glance
 * shows what only the list says (a stack's state, Listed.ts): the fields of the answer to spread.
 */
export const shownWith = (
  view: View.View,
  invocation: Invocation,
  data: unknown,
  shown: NameMaps | undefined,
  client: SvcClientShape,
  reads: ReadsBeside,
): Effect.Effect<{ readonly names?: NameMaps; readonly listed?: Readonly<Record<string, unknown>> }> =>
  Effect.map(
    view._tag === "Record"
      ? Listed.ofRecord(reads.listed, data, client)
      : view._tag === "Execution"
        ? Listed.ofUpdate(data, shown, Execution.givenName(data, invocation.body), client)
        : Effect.succeed(undefined),
    (listed) => ({ ...(shown === undefined ? {} : { names: shown }), ...(listed === undefined ? {} : { listed }) }),
  )

/**
 * The first line an answer's own findings make: an execution answered at once says what it did and
 * found (Executed.ts); an empty log, why (EmptyLog.ts); resources on a server that cannot be reached,
 * since when (Stale.ts). None, and so no step, where the answer's reads hold none of them.
 */
export const firstLine = (
  reads: ReadsBeside,
  invocation: Invocation,
  data: unknown,
  shown: NameMaps | undefined,
  client: SvcClientShape,
  names: Context.Tag.Service<Names>,
): Effect.Effect<string | undefined> | undefined => {
  const done = reads.executed?.(data, shown ?? {})
  if (done !== undefined) return Effect.succeed(done)
  const empty = reads.emptyLog !== undefined && isEmptyLog(data) ? reads.emptyLog : undefined
  if (reads.stale === undefined && empty === undefined) return undefined
  const stale = () => staleNote(reads, data, client, names)
  if (empty === undefined) return stale()
  return Effect.flatMap(readBackOf(empty, invocation.body, client, names), (why) =>
    isNothing(why.data) ? stale() : Effect.succeed(why.summary),
  )
}

/** Whether the answer's items are on a server that cannot be reached, said so with since when (Stale.ts). */
const staleNote = (
  reads: ReadsBeside,
  data: unknown,
  client: SvcClientShape,
  names: Context.Tag.Service<Names>,
): Effect.Effect<string | undefined> => {
  if (reads.stale === undefined) return NO_LINE
  const read = (endpoint: string, body: object) => client.call("read", endpoint, body)
  const down = Option.isSome(names)
    ? Effect.map(names.value.lookup(["unreachable"]), (maps) => maps.unreachable ?? new Map<string, string>())
    : Effect.map(
        Effect.orElseSucceed(read("ListServers", { limit: 0 }), () => []),
        unreachableOf,
      )
  return Stale.noteOf(reads.stale, data, down, read)
}

/** What a change answered with nothing now holds, read back (ReadBack.ts); said so where the read fails. */
export const readBackOf = (
  back: ReadBack,
  body: Readonly<Record<string, unknown>>,
  client: SvcClientShape,
  names: Context.Tag.Service<Names>,
): Effect.Effect<Pick<ToolSuccess, "data" | "summary" | "view">> =>
  Effect.gen(function* () {
    const read = back.read(body)
    if (read === undefined) return { data: {}, view: View.View.Whole() }
    const [group, endpoint] = read.endpoint.split("/") as [Group, string]
    const answer = yield* Effect.either(client.call(group, endpoint, read.body))
    if (Either.isLeft(answer) || !(isObject(answer.right) || Array.isArray(answer.right))) {
      const why = Either.isLeft(answer) ? `: ${answer.left.message}` : ""
      return {
        data: {},
        summary: `[svc-mcp: the service answered nothing; reading back ${read.endpoint} failed${why}]`,
        view: View.View.Whole(),
      }
    }
    const kinds = back.kinds(answer.right, body)
    const maps = kinds.length === 0 || Option.isNone(names) ? {} : yield* names.value.lookup(kinds)
    const said = back.said(answer.right, body, maps)
    return { data: said.value, summary: said.line, view: View.View.Whole() }
  })
