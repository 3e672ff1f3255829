/**
 * What a prune will remove, for its question: read just before asking from the lists the service
 * answers (each item's `in_use`, as the service's own prune decides), each item with its size,
 * and the total. Bounded: the first LISTED named, the rest counted; a list that cannot be read is
 * said so, and the question is asked all the same.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { quote } from "../Shared/Quote.js"
import { SvcClient } from "../SvcClient.js"

/** The prunes foreseen: the list each reads, what it calls its items, and which of them it keeps. */
const PRUNES: Readonly<
  Record<string, { readonly list: string; readonly items: string; readonly kept?: ReadonlyArray<string> }>
> = {
  PruneImages: { list: "ListImages", items: "images" },
  PruneVolumes: { list: "ListVolumes", items: "volumes" },
  // Docker's own networks are never pruned.
  PruneNetworks: { list: "ListNetworks", items: "networks", kept: ["bridge", "host", "none"] },
}

/** How many of what goes the question names. */
const LISTED = 30

/** Bytes in decimal units, as docker counts them: 192 MB, 1.2 GB. */
export const bytes = (n: number): string => {
  if (n >= 1e9) return `${Math.round(n / 1e8) / 10} GB`
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`
  return n >= 1e3 ? `${Math.round(n / 1e3)} kB` : `${n} B`
}

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {}

/** The lines of a prune's question: what goes, each with its size, the total, and what stays in use. */
const said = (items: string, server: string, listed: ReadonlyArray<unknown>, kept: ReadonlyArray<string>) => {
  const all = listed.map(record)
  const goes = all.filter((i) => i.in_use !== true && !kept.includes(String(i.name)))
  const sized = goes.some((i) => typeof i.size === "number")
  const total = goes.reduce((sum, i) => sum + (typeof i.size === "number" ? i.size : 0), 0)
  const inUse = all.length - goes.length
  if (goes.length === 0)
    return [`This removes no ${items} on the server ${quote(server)}: all ${all.length} are in use.`]
  return [
    `This removes ${goes.length} ${items} on the server ${quote(server)}, none of them in use${sized ? `, ${bytes(total)} in all (${total} bytes)` : ""}:`,
    ...goes
      .slice(0, LISTED)
      .map((i) => `  ${quote(String(i.name ?? i.id ?? ""))}${typeof i.size === "number" ? ` ${bytes(i.size)}` : ""}`),
    ...(goes.length > LISTED ? [`  … and ${goes.length - LISTED} more`] : []),
    `Kept, in use: ${inUse} ${items}.`,
  ]
}

/** The plan of a prune on a server, read now; none for a call that is no prune this foresees. */
export const make = (
  endpoint: string,
  body: Readonly<Record<string, unknown>>,
): Effect.Effect<Option.Option<ReadonlyArray<string>>, never, SvcClient> => {
  const prune = PRUNES[endpoint.slice(endpoint.indexOf("/") + 1)]
  const server = typeof body.server === "string" ? body.server : undefined
  if (prune === undefined || server === undefined) return Effect.succeed(Option.none())
  return Effect.flatMap(SvcClient, (client) => client.call("read", prune.list, { server })).pipe(
    Effect.map((listed) =>
      Array.isArray(listed)
        ? said(prune.items, server, listed, prune.kept ?? [])
        : [`What it removes could not be read: ${prune.list} answered no list.`],
    ),
    Effect.catchAll((error) => Effect.succeed([`What it removes could not be read (${error.message}).`])),
    Effect.map(Option.some),
  )
}
