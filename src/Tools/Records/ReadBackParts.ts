/**
 * What every read-back is made of (ReadBack.ts): the read, the kinds of names it shows, what it
 * says; and the words for a target, a holder and a permission that several of them share.
 */
import { wordOf } from "../../Kinds/Kinds.js"
import { isObject } from "../../Shared/JsonShape.js"
import type { NameKind, NameMaps } from "../Names/Names.js"

export type Json = Readonly<Record<string, unknown>>

export interface ReadBack {
  /** The read that says what holds, from the change's params; undefined where they do not name it. */
  readonly read: (body: Json) => { readonly endpoint: string; readonly body: Json } | undefined
  /** The kinds of names what is said shows. */
  readonly kinds: (answer: unknown, body: Json) => ReadonlyArray<NameKind>
  /** What holds, as a first line and a value. */
  readonly said: (answer: unknown, body: Json, names: NameMaps) => { readonly line: string; readonly value: Json }
}

export const nameOf = (names: NameMaps, kind: NameKind | undefined, id: unknown): unknown =>
  typeof id === "string" && kind !== undefined ? (names[kind]?.get(id) ?? id) : id

/** The kind of names a ResourceTarget's or UserTarget's id is of. */
export const kindOfTarget = (target: unknown): ReadonlyArray<NameKind> => {
  const kind = isObject(target) && typeof target.type === "string" ? wordOf(target.type) : undefined
  return kind === undefined ? [] : [kind]
}

/** A ResourceTarget or UserTarget in words: `Server prod-02`, `User alice`, `System`. */
export const targetWords = (target: unknown, names: NameMaps): string => {
  if (!isObject(target) || typeof target.type !== "string") return "unknown"
  if (typeof target.id !== "string" || target.id === "") return target.type
  return `${target.type} ${String(nameOf(names, wordOf(target.type), target.id))}`
}

/** A permission as the service holds it: a level, or a level and its specifics. */
export const levelOf = (permission: unknown): { readonly level: string; readonly specific: ReadonlyArray<unknown> } =>
  isObject(permission)
    ? {
        level: typeof permission.level === "string" ? permission.level : "None",
        specific: Array.isArray(permission.specific) ? permission.specific : [],
      }
    : { level: typeof permission === "string" ? permission : "None", specific: [] }

/** The id of one resource a change names by `key` or its aliases `id` and `name`. */
export const named = (body: Json, key: string): string | undefined => {
  const value = body[key] ?? body.id ?? body.name
  return typeof value === "string" && value !== "" ? value : undefined
}

/** The commits of a build, repo or stack after its cache is refreshed, and whether they differ. */
export const commits = (answer: unknown, built: string) => {
  const info = isObject(answer) && isObject(answer.info) ? answer.info : {}
  const hash = (key: string) => (typeof info[key] === "string" && info[key] !== "" ? (info[key] as string) : null)
  const ran = hash(built)
  const latest = hash("latest_hash")
  return { ran, latest, differs: ran !== null && latest !== null && ran !== latest }
}
