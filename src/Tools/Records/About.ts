/**
 * Answers that say what they are about, by name: an update check holds its stack's or
 * deployment's id, shown as its name; an action state holds nothing of whose it is, said in a
 * first line from the call's params. By endpoint, as data; `fields: ["*"]` gives the answer as sent.
 */
import { isObject } from "../../Shared/JsonShape.js"
import type { NameKind, NameMaps } from "../Names/Names.js"
import type { Glimpse } from "./Records.js"

type Json = Readonly<Record<string, unknown>>

export interface About {
  /** The field of the answer, or of each item of a list, that holds a resource's id, and its kind. */
  readonly id?: readonly [field: string, kind: NameKind]
  /** The params' field that names what the answer is about, its kind and the words for it. */
  readonly subject?: readonly [field: string, kind: NameKind, noun: string]
}

const ID = /^[0-9a-f]{24}$/

const STATES: ReadonlyArray<readonly [endpoint: string, field: string, kind: NameKind]> = [
  ["Stack", "stack", "stack"],
  ["Deployment", "deployment", "deployment"],
  ["Build", "build", "build"],
  ["Repo", "repo", "repo"],
  ["Procedure", "procedure", "procedure"],
  ["Action", "action", "action"],
  ["ResourceSync", "sync", "sync"],
  ["Server", "server", "server"],
  ["Swarm", "swarm", "swarm"],
]

export const ABOUT: Readonly<Record<string, About>> = {
  "write/CheckStackForUpdate": { id: ["stack", "stack"] },
  "write/BatchCheckStackForUpdate": { id: ["stack", "stack"] },
  "write/CheckDeploymentForUpdate": { id: ["deployment", "deployment"] },
  "write/BatchCheckDeploymentForUpdate": { id: ["deployment", "deployment"] },
  ...Object.fromEntries(
    STATES.map(([type, field, kind]) => [
      `read/Get${type}ActionState`,
      { subject: [field, kind, field] } satisfies About,
    ]),
  ),
}

/** The subject as the params gave it: under its own field, or `id` or `name`. */
const subjectOf = (about: About, body: Json): string | undefined => {
  if (about.subject === undefined) return undefined
  const given = body[about.subject[0]] ?? body.id ?? body.name
  return typeof given === "string" && given !== "" ? given : undefined
}

/** The kinds of names `answer` to `body` shows: its ids', and the subject's where the params gave an id. */
export const kindsFor = (about: About, answer: unknown, body: Json): ReadonlyArray<NameKind> => {
  const kinds: Array<NameKind> = []
  const id = about.id
  const holds = (item: unknown) => id !== undefined && isObject(item) && typeof item[id[0]] === "string"
  if (id !== undefined && (Array.isArray(answer) ? answer.some(holds) : holds(answer))) kinds.push(id[1])
  const subject = subjectOf(about, body)
  if (about.subject !== undefined && subject !== undefined && ID.test(subject)) kinds.push(about.subject[1])
  return kinds
}

const named = (item: unknown, [field, kind]: readonly [string, NameKind], names: NameMaps): unknown => {
  if (!isObject(item) || typeof item[field] !== "string") return item
  const name = names[kind]?.get(item[field])
  // fromEntries, not assignment: the fields stay in their order, a "__proto__" a field.
  return name === undefined
    ? item
    : Object.fromEntries(Object.entries(item).map(([k, v]) => [k, k === field ? name : v]))
}

/** The answer by name, and a first line naming its subject where it has one. */
export const glance = (about: About, answer: unknown, body: Json, names: NameMaps): Glimpse => {
  const { id } = about
  const value =
    id === undefined
      ? answer
      : Array.isArray(answer)
        ? answer.map((item) => named(item, id, names))
        : named(answer, id, names)
  const subject = subjectOf(about, body)
  if (about.subject === undefined || subject === undefined) return { value, untrusted: [] }
  const [, kind, noun] = about.subject
  const name = names[kind]?.get(subject) ?? subject
  return {
    value,
    untrusted: [],
    line: `[svc-mcp: the action state of ${noun} ${name}; fields: ["*"] for the answer as sent]\n`,
  }
}
