/**
 * Resources on a server that cannot be reached show their last known state: a list of stacks or
 * deployments, and one at a glance, say so in a first line, with since when (the server's open
 * ServerUnreachable alert's time). By endpoint, as data: where each item's server id is.
 */
import * as Effect from "effect/Effect"
import { isObject } from "../../Shared/JsonShape.js"

type Json = Readonly<Record<string, unknown>>

/** By endpoint: where an item names its server, and whether the answer is a list. */
const STALE_READS: Readonly<Record<string, { readonly path: "info" | "config"; readonly list: boolean }>> = {
  "read/ListStacks": { path: "info", list: true },
  "read/ListDeployments": { path: "info", list: true },
  "read/GetStack": { path: "config", list: false },
  "read/GetDeployment": { path: "config", list: false },
}

/** The read that says since when each server cannot be reached. */
const UNREACHABLE = {
  endpoint: "ListAlerts",
  body: { query: { resolved: false, "data.type": "ServerUnreachable" } },
} as const

/** Each item of the answer with its server's id: `[name, server id]`. */
const itemsOf = (endpoint: string, data: unknown): ReadonlyArray<readonly [string, string]> => {
  const read = STALE_READS[endpoint]
  if (read === undefined) return []
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
  endpoint: string,
  data: unknown,
  down: Effect.Effect<ReadonlyMap<string, string>>,
  read: (endpoint: string, body: Json) => Effect.Effect<unknown, unknown>,
): Effect.Effect<string | undefined> => {
  const items = itemsOf(endpoint, data)
  if (items.length === 0) return Effect.succeed(undefined)
  return Effect.gen(function* () {
    const servers = yield* down
    if (!items.some(([, at]) => servers.has(at))) return undefined
    const since = yield* Effect.orElseSucceed(read(UNREACHABLE.endpoint, UNREACHABLE.body), () => [])
    return staleLine(items, servers, sinceOf(since))
  }).pipe(Effect.orElseSucceed(() => undefined))
}
