/**
 * An execution the service answers at once with what now holds, not with an Update to follow: a
 * check for newer images, a sync's plan computed anew. Its first line says what was done and what
 * it found, as data (which endpoint says which: the table of reads beside an answer, ReadsBeside.ts);
 * one not in the table says it was done and that the answer below is what now holds. Never that something is missing: an answer without an Update is not a failure.
 */
import { isObject } from "../../Shared/JsonShape.js"
import type { NameKind, NameMaps } from "../Names/Names.js"

/** The first line of an execution answered without an Update, from its answer and the names of its ids. */
export type Said = (data: unknown, names: NameMaps) => string

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const text = (value: unknown): string => (typeof value === "string" ? value : "")
/** The service answers a check's target by id: said by name where the names hold it. */
const named = (names: NameMaps, kind: NameKind, value: unknown): string => names[kind]?.get(text(value)) ?? text(value)
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The services of a stack's check that have a newer image. */
const newer = (check: unknown): ReadonlyArray<string> =>
  list(isObject(check) ? check.services : undefined).flatMap((s) =>
    isObject(s) && s.update_available === true ? [text(s.service)] : [],
  )

const stackFound = (check: unknown): string => {
  const services = list(isObject(check) ? check.services : undefined).length
  const found = newer(check)
  return found.length === 0
    ? `none of its ${plural(services, "service")} has a newer image`
    : `${found.length} of its ${plural(services, "service")} ${found.length === 1 ? "has" : "have"} a newer image (${found.join(", ")})`
}

export const CHECK_STACK: Said = (data, names) =>
  `[svc-mcp: checked the stack ${named(names, "stack", isObject(data) ? data.stack : "")} for newer images: ${stackFound(data)}]`

export const CHECK_DEPLOYMENT: Said = (data, names) => {
  const check = isObject(data) ? data : {}
  return `[svc-mcp: checked the deployment ${named(names, "deployment", check.deployment)} for a newer image: ${check.update_available === true ? "a newer image is available" : "none is available"}]`
}

/** A batch's checks: how many were checked, and which have a newer image. */
const batch =
  (kind: "stack" | "deployment", has: (check: unknown, names: NameMaps) => string | undefined): Said =>
  (data, names) => {
    const checks = list(data)
    const found = checks.flatMap((c) => {
      const said = has(c, names)
      return said === undefined ? [] : [said]
    })
    const what = found.length === 0 ? "none has a newer image" : `newer images for ${found.join(", ")}`
    return `[svc-mcp: checked ${plural(checks.length, kind)} for newer images: ${what}]`
  }

export const BATCH_STACKS = batch("stack", (check, names) => {
  const found = newer(check)
  return found.length === 0
    ? undefined
    : `${named(names, "stack", isObject(check) ? check.stack : "")} (${found.join(", ")})`
})

export const BATCH_DEPLOYMENTS = batch("deployment", (check, names) =>
  isObject(check) && check.update_available === true ? named(names, "deployment", check.deployment) : undefined,
)

export const REFRESH_SYNC: Said = (data) => {
  const sync = isObject(data) ? data : {}
  const info = isObject(sync.info) ? sync.info : {}
  const changes = ["resource_updates", "variable_updates", "user_group_updates"]
    .map((key) => list(info[key]).length)
    .reduce((a, b) => a + b, 0)
  const deploys = list(info.pending_deploys).length
  const error = text(info.pending_error)
  const now =
    error === ""
      ? `${plural(changes, "change")} and ${plural(deploys, "deploy")} pending now`
      : "its files could not be read (error below); the plan is as it was"
  return `[svc-mcp: the sync ${text(sync.name)}'s plan is computed anew from its repository: ${now}]`
}

/** Said of any other execution answered without an Update. */
export const DONE = "[svc-mcp: done at once: the service answers this with what now holds (below), not a run to follow]"
