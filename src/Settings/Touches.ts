/**
 * The part of a policy pattern after `@`: what a call touches, for SVC_CONFIRM, SVC_GUARD_HOLD,
 * SVC_DENY and SVC_ALLOW alike. `tag:production`, a resource that carries a tag so named;
 * `stack:prod-*`, a resource of that type whose name matches; `server:prod-01`, the server itself
 * and everything on it; `swarm:edge-*`, the swarm itself and every stack and deployment on it;
 * `builder:local-*`, the builder itself and every build and repo built on it. Names take `*` as any
 * run of characters, every other character as itself.
 * The part before `@` is the pattern's own (ToolSettings.ts); this module parses only what follows it.
 */
import * as Either from "effect/Either"
import * as Kinds from "../Kinds/Kinds.js"
import { glob } from "../Shared/Wildcard.js"

/** What `server:`, `swarm:` and `builder:` name: the resource itself and everything on it, more than one of its type. */
type Place = "server" | "swarm" | "builder"
const PLACES: ReadonlyArray<string> = ["server", "swarm", "builder"] satisfies ReadonlyArray<Place>
type TouchType = Exclude<Kinds.ResourceWord, Place>
const isType = (word: string): word is TouchType => !PLACES.includes(word)

/**
 * The resource types a pattern may name after `@`: the kinds a ResourceTarget names (Kinds/Kinds.ts)
 * by their words, in the table's order, but the places. Each is spelled as the table spells it
 * (Kinds.SPELLINGS): `sync`, `sync_resource` or `resource_sync`.
 */
export const TYPES: ReadonlyArray<TouchType> = Kinds.RESOURCES.map((kind) => kind.names).filter(isType)

/** What a pattern's `@` part names. */
export type Touch =
  | { readonly _tag: "Tag"; readonly text: string; readonly name: RegExp }
  | { readonly _tag: "Server"; readonly text: string; readonly name: RegExp }
  | { readonly _tag: "Swarm"; readonly text: string; readonly name: RegExp }
  | { readonly _tag: "Builder"; readonly text: string; readonly name: RegExp }
  | { readonly _tag: "Resource"; readonly text: string; readonly type: TouchType; readonly name: RegExp }

/** The most characters of a name pattern: a pattern longer than any name is a mistake, and bounds the match. */
const MOST = 200

/** `*` any run of characters, every other character itself: a whole name, matched in linear time. */
const namePattern = glob

/** Why an `@` part is refused, or what it names. */
export const parse = (text: string): Either.Either<Touch, string> => {
  const match = /^([a-z_]+):([A-Za-z0-9_.*-]+)$/.exec(text)
  if (match === null || text.length > MOST) {
    return Either.left(
      `has ${JSON.stringify(`@${text}`)} after @, which is not tag:NAME, server:NAME, swarm:NAME, builder:NAME or TYPE:NAME (NAME of letters, digits, _ . - and *)`,
    )
  }
  const [, kind, name] = match as unknown as [string, string, string]
  if (kind === "tag") return Either.right({ _tag: "Tag", text, name: namePattern(name) })
  if (kind === "server") return Either.right({ _tag: "Server", text, name: namePattern(name) })
  if (kind === "swarm") return Either.right({ _tag: "Swarm", text, name: namePattern(name) })
  if (kind === "builder") return Either.right({ _tag: "Builder", text, name: namePattern(name) })
  const type = Kinds.SPELLINGS.get(kind)
  if (type !== undefined && isType(type)) return Either.right({ _tag: "Resource", text, type, name: namePattern(name) })
  return Either.left(
    `names ${JSON.stringify(kind)} after @, which is no resource type: use tag, server, swarm, builder, or one of ${TYPES.join(", ")}`,
  )
}

/**
 * A pattern split at its first `@`: the part before it, and what follows parsed; without `@`,
 * the pattern whole and nothing touched.
 */
export const split = (item: string): Either.Either<{ head: string; touch: Touch | undefined }, string> => {
  const at = item.indexOf("@")
  if (at < 0) return Either.right({ head: item, touch: undefined })
  return Either.map(parse(item.slice(at + 1)), (touch) => ({ head: item.slice(0, at), touch }))
}
