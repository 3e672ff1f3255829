/**
 * A resource sync's pending changes, read from GetResourceSync's `info` as the
 * service computes them on a refresh: `resource_updates` (a ResourceDiff each:
 * target and Create/Update/Delete of TOML text), `variable_updates` and
 * `user_group_updates` (DiffData), `pending_deploys`, and the commit
 * (`pending_hash`, `pending_message`). Names come from the TOML the service
 * sent, or else from a read of the target. Read alike for a confirmation's
 * plan (Confirmation/Plan.ts) and for a sync's record at a glance (SyncPlan.ts).
 */
import * as Effect from "effect/Effect"
import * as Kinds from "../../Kinds/Kinds.js"
import * as Toml from "./Toml.js"

interface Named {
  /** The ResourceTarget's type, e.g. "Stack". */
  readonly type: string
  readonly name: string
}

interface Diffs<A> {
  readonly created: ReadonlyArray<A>
  readonly updated: ReadonlyArray<A>
  readonly deleted: ReadonlyArray<A>
}

export interface SyncChanges {
  readonly hash: string | undefined
  readonly message: string | undefined
  readonly resources: Diffs<Named>
  readonly variables: Diffs<string>
  readonly userGroups: Diffs<string>
  readonly deploys: ReadonlyArray<Named & { readonly reason: string }>
  /** Why the service could not compute the changes, when it could not. */
  readonly error: string | undefined
  readonly deployError: string | undefined
}

/** The types a target's name can be read for (`read/Get<type>` with `{id}`): a ResourceTarget's (Kinds/Kinds.ts). */
const READABLE: ReadonlySet<string> = new Set(Kinds.RESOURCE_TYPES)

export const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
export const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
export const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

/** The resource's `name` in a TOML text, as the TOML parser reads it (Toml.ts). */
export const tomlName = (toml: unknown): string | undefined =>
  typeof toml === "string" ? Toml.nameIn(toml) : undefined

type Kind = "Create" | "Update" | "Delete"

/** A DiffData: its kind, the name its data gives (Create's `name`, else the TOML's), and its TOML texts. */
export interface Diff {
  readonly kind: Kind
  readonly name: string | undefined
  readonly current: string | undefined
  readonly proposed: string | undefined
}

/** A DiffData read, or undefined where it is none. */
export const diff = (value: unknown): Diff | undefined => {
  const { type, data } = record(value)
  if (type !== "Create" && type !== "Update" && type !== "Delete") return undefined
  const d = record(data)
  const current = typeof d.current === "string" ? d.current : undefined
  const proposed = typeof d.proposed === "string" ? d.proposed : undefined
  return { kind: type, name: text(d.name) ?? tomlName(proposed) ?? tomlName(current), current, proposed }
}

/** A ResourceDiff read: its target's type and id (`""` for a resource still to create), and its change. */
export interface ResourceDiff extends Diff {
  readonly type: string
  readonly id: string
}

/** The resource diffs of a sync's `info`, in the service's order. */
export const resourceDiffs = (info: unknown): ReadonlyArray<ResourceDiff> =>
  list(record(info).resource_updates).flatMap((update) => {
    const { target, data } = record(update)
    const t = record(target)
    const d = diff(data)
    return d === undefined ? [] : [{ ...d, type: text(t.type) ?? "Resource", id: text(t.id) ?? "" }]
  })

const byKind = <A>(items: ReadonlyArray<{ kind: Kind; value: A }>): Diffs<A> => ({
  created: items.filter((i) => i.kind === "Create").map((i) => i.value),
  updated: items.filter((i) => i.kind === "Update").map((i) => i.value),
  deleted: items.filter((i) => i.kind === "Delete").map((i) => i.value),
})

const names = (values: unknown): Diffs<string> =>
  byKind(
    list(values).flatMap((v) => {
      const d = diff(v)
      return d === undefined ? [] : [{ kind: d.kind, value: d.name ?? "(unnamed)" }]
    }),
  )

/**
 * The changes of a sync's `info`. `nameOf` reads a target's name where the
 * service's texts give none; a failed read leaves the id.
 */
export const syncChanges = <E, R>(
  info: unknown,
  nameOf: (type: string, id: string) => Effect.Effect<string | undefined, E, R>,
): Effect.Effect<SyncChanges, never, R> =>
  Effect.gen(function* () {
    const i = record(info)
    const known = new Map<string, string>()
    const resolve = (type: string, id: string, given: string | undefined) =>
      Effect.gen(function* () {
        if (given !== undefined) return given
        const seen = known.get(`${type}/${id}`)
        if (seen !== undefined) return seen
        if (id === "" || !READABLE.has(type)) return id === "" ? "(unnamed)" : id
        const read = yield* Effect.orElseSucceed(nameOf(type, id), () => undefined)
        return read ?? id
      })
    const resources: Array<{ kind: Kind; value: Named }> = []
    for (const { kind, type, id, name: given } of resourceDiffs(info)) {
      const name = yield* resolve(type, id, given)
      if (id !== "") known.set(`${type}/${id}`, name)
      resources.push({ kind, value: { type, name } })
    }
    const deploys: Array<Named & { reason: string }> = []
    for (const deploy of list(i.pending_deploys)) {
      const { target, reason } = record(deploy)
      const t = record(target)
      const type = text(t.type) ?? "Resource"
      deploys.push({ type, name: yield* resolve(type, text(t.id) ?? "", undefined), reason: text(reason) ?? "" })
    }
    return {
      hash: text(i.pending_hash),
      message: text(i.pending_message),
      resources: byKind(resources),
      variables: names(i.variable_updates),
      userGroups: names(i.user_group_updates),
      deploys,
      error: text(i.pending_error),
      deployError: text(i.pending_deploy_error),
    }
  })
