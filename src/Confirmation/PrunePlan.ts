/**
 * What a prune will remove, for its question: read just before asking from the lists the service
 * answers (each item's `in_use`, as the service's own prune decides), each item with its size,
 * and the total. A container prune takes the stopped containers; a system prune (`docker system
 * prune -a --volumes`) takes those first, then every network, image and volume no container left
 * uses. Bounded: the first LISTED named, the rest counted; a list that cannot be read is said so,
 * and the question is asked all the same.
 */
import * as Effect from "effect/Effect"
import { oneLine, quote } from "../Shared/Quote.js"
import { SvcClient } from "../SvcClient.js"
import type { Preview } from "./PlanShape.js"

type Item = Readonly<Record<string, unknown>>

/** Docker's own networks are never pruned. */
const BUILTIN = ["bridge", "host", "none"]

/** A container docker counts as stopped: `docker container prune` removes it. */
const STOPPED = ["exited", "created", "dead"]

/** The lists a prune reads, what it calls their items, and which of them it keeps given the containers left. */
interface Kind {
  readonly list: string
  readonly items: string
  readonly kept: (item: Item, left: ReadonlyArray<Item>) => boolean
}

const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.map(String) : [])

const CONTAINERS: Kind = {
  list: "ListContainers",
  items: "containers",
  kept: (c) => !STOPPED.includes(String(c.state)),
}
const IMAGES: Kind = { list: "ListImages", items: "images", kept: (i) => i.in_use === true }
const VOLUMES: Kind = { list: "ListVolumes", items: "volumes", kept: (v) => v.in_use === true }
const NETWORKS: Kind = {
  list: "ListNetworks",
  items: "networks",
  kept: (n) => n.in_use === true || BUILTIN.includes(String(n.name)),
}

/** After the stopped containers go, what only they used is no longer in use: kept only if a container left uses it. */
const SYSTEM: ReadonlyArray<Kind> = [
  CONTAINERS,
  {
    ...NETWORKS,
    kept: (n, left) =>
      BUILTIN.includes(String(n.name)) || left.some((c) => strings(c.networks).includes(String(n.name))),
  },
  {
    ...IMAGES,
    kept: (i, left) => left.some((c) => c.image === i.name || (c.image_id !== undefined && c.image_id === i.id)),
  },
  { ...VOLUMES, kept: (v, left) => left.some((c) => strings(c.volumes).includes(String(v.name))) },
]

/** How many of what goes the question names, of each kind. */
const LISTED = 30

/** Bytes in decimal units, as docker counts them: 192 MB, 1.2 GB. */
const bytes = (n: number): string => {
  if (n >= 1e9) return `${Math.round(n / 1e8) / 10} GB`
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`
  return n >= 1e3 ? `${Math.round(n / 1e3)} kB` : `${n} B`
}

const record = (value: unknown): Item => (typeof value === "object" && value !== null ? (value as Item) : {})

/** An item's size in bytes, as its list gives it: an image's or volume's `size`, a container's `size_rw`. */
const sizeOf = (i: Item): number | undefined =>
  typeof i.size === "number" ? i.size : typeof i.size_rw === "number" ? i.size_rw : undefined

/** The lines of one kind: what goes, each with its size, the total, and what stays in use. */
const said = (items: string, server: string, all: ReadonlyArray<Item>, goes: ReadonlyArray<Item>) => {
  const sized = goes.some((i) => sizeOf(i) !== undefined)
  const total = goes.reduce((sum, i) => sum + (sizeOf(i) ?? 0), 0)
  const inUse = all.length - goes.length
  if (goes.length === 0)
    return [`This removes no ${items} on the server ${quote(server)}: all ${all.length} are in use.`]
  return [
    `This removes ${goes.length} ${items} on the server ${quote(server)}, none of them in use${sized ? `, ${bytes(total)} in all (${total} bytes)` : ""}:`,
    ...goes.slice(0, LISTED).map((i) => {
      const size = sizeOf(i)
      return `  ${quote(String(i.name ?? i.id ?? ""))}${size === undefined ? "" : ` ${bytes(size)}`}`
    }),
    ...(goes.length > LISTED ? [`  … and ${goes.length - LISTED} more`] : []),
    `Kept, in use: ${inUse} ${items}.`,
  ]
}

/** Each kind's lines, the containers read once and kept by every kind that asks which are left. */
const lines = (server: string, kinds: ReadonlyArray<Kind>, lists: ReadonlyArray<unknown>) => {
  const containers = kinds.indexOf(CONTAINERS)
  const left =
    containers < 0
      ? []
      : (lists[containers] as ReadonlyArray<unknown>).map(record).filter((c) => CONTAINERS.kept(c, []))
  return kinds.flatMap((kind, k) => {
    const all = (lists[k] as ReadonlyArray<unknown>).map(record)
    return said(
      kind.items,
      server,
      all,
      all.filter((i) => !kind.kept(i, left)),
    )
  })
}

/** The lines of a prune on the server its call names, read now; none for a call that names no server. */
const make = (
  kinds: ReadonlyArray<Kind>,
  body: Readonly<Record<string, unknown>>,
): Effect.Effect<ReadonlyArray<string>, never, SvcClient> => {
  const server = typeof body.server === "string" ? body.server : undefined
  if (server === undefined) return Effect.succeed([])
  return Effect.flatMap(SvcClient, (client) =>
    Effect.forEach(kinds, (kind) => client.call("read", kind.list, { server })),
  ).pipe(
    Effect.map((lists) => {
      const unlisted = kinds.find((_, k) => !Array.isArray(lists[k]))
      return unlisted === undefined
        ? lines(server, kinds, lists)
        : [`What it removes could not be read: ${unlisted.list} answered no list.`]
    }),
    Effect.catchAll((error) => Effect.succeed([`What it removes could not be read (${oneLine(error.message)}).`])),
  )
}

/** A prune that takes `kinds`: what goes, each with its size, and what is kept in use. */
const prune = (kinds: ReadonlyArray<Kind>): Preview => ({ lines: ({ invocation }) => make(kinds, invocation.body) })

/** The prunes foreseen, each with the kinds it takes (Previews.ts keys them by endpoint). */
export const IMAGES_PRUNE = prune([IMAGES])
export const VOLUMES_PRUNE = prune([VOLUMES])
export const NETWORKS_PRUNE = prune([NETWORKS])
export const CONTAINERS_PRUNE = prune([CONTAINERS])
export const SYSTEM_PRUNE = prune(SYSTEM)
