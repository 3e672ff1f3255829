/**
 * Resources on a server that cannot be reached show their last known state: a list of stacks or
 * deployments, and one at a glance, say so in a first line, with since when (the server's open
 * ServerUnreachable alert's time). As data: where each item's server id is; which answers say so
 * is said by the table of reads beside an answer (ReadsBeside.ts).
 */
import * as Effect from "effect/Effect"
import { isObject } from "../../Shared/JsonShape.js"

type Json = Readonly<Record<string, unknown>>

/** Where an answer's items name their server, and whether the answer is a list. */
export interface StaleRead {
  readonly path: "info" | "config"
  readonly list: boolean
}

/** A list of stacks or deployments: each item's server is in its `info`. */
export const LIST: StaleRead = { path: "info", list: true }

/** A stack's or deployment's record: its server is in its `config`. */
export const RECORD: StaleRead = { path: "config", list: false }

/** The read that says since when each server cannot be reached. */
const UNREACHABLE = {
  endpoint: "ListAlerts",
  body: { query: { resolved: false, "data.type": "ServerUnreachable" } },
} as const

/** Each item of the answer with its server's id: `[name, server id]`. */
const itemsOf = (read: StaleRead, data: unknown): ReadonlyArray<readonly [string, string]> => {
  const items = read.list ? (Array.isArray(data) ? data : []) : [data]
  return items.flatMap((item) => {
    if (!isObject(item)) return []
    const at = isObject(item[read.path]) ? (item[read.path] as Json) : {}
    return typeof at.server_id === "string" && at.server_id !== ""
      ? [[String(item.name ?? ""), at.server_id] as const]
      : []
  })
}

/** Since when each server cannot be reached: its open ServerUnreachable alert's time, by server id. */
const sinceOf = (alerts: unknown): ReadonlyMap<string, number> => {
  const list = isObject(alerts) && Array.isArray(alerts.alerts) ? alerts.alerts : Array.isArray(alerts) ? alerts : []
  return new Map(
    list.flatMap((a) =>
      isObject(a) && isObject(a.target) && typeof a.target.id === "string" && typeof a.ts === "number"
        ? [[a.target.id, a.ts] as const]
        : [],
    ),
  )
}

/** The line: for each server that cannot be reached, since when, and the items whose state is its last known. */
const staleLine = (
  items: ReadonlyArray<readonly [string, string]>,
  down: ReadonlyMap<string, string>,
  since: ReadonlyMap<string, number>,
): string | undefined => {
  const notes = [...down].flatMap(([id, server]) => {
    const on = items.filter(([, at]) => at === id).map(([name]) => name)
    if (on.length === 0) return []
    const ts = since.get(id)
    const when = ts === undefined ? "since a time not known" : `since ${new Date(ts).toISOString()}`
    return [
      `stale ${when}: the server ${server} cannot be reached (NotOk); the state shown of ${on.join(", ")} is the last known`,
    ]
  })
  return notes.length === 0 ? undefined : `[svc-mcp: ${notes.join("; ")}]`
}

/**
 * The note of an answer: `down`, the servers that cannot be reached (kept as names are, so that a
 * list costs no read of its own), then since when, read only where an item is on one of them.
 */
export const noteOf = (
  at: StaleRead,
  data: unknown,
  down: Effect.Effect<ReadonlyMap<string, string>>,
  read: (endpoint: string, body: Json) => Effect.Effect<unknown, unknown>,
): Effect.Effect<string | undefined> => {
  const items = itemsOf(at, data)
  if (items.length === 0) return Effect.succeed(undefined)
  return Effect.gen(function* () {
    const servers = yield* down
    if (!items.some(([, at]) => servers.has(at))) return undefined
    const since = yield* Effect.orElseSucceed(read(UNREACHABLE.endpoint, UNREACHABLE.body), () => [])
    return staleLine(items, servers, sinceOf(since))
  }).pipe(Effect.orElseSucceed(() => undefined))
}
