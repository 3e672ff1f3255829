/**
 * The plan a confirmation question shows, as data: what a delete removes, what
 * a batch's pattern matches, what a sync applies. A Left is a read that failed,
 * in words.
 */
import type * as Either from "effect/Either"
import type { SyncChanges } from "./SyncChanges.js"

export interface DeletePlan {
  readonly _tag: "Delete"
  /** The selector: the kind of record. */
  readonly kind: string
  /** As the call names it: an id or a name. */
  readonly target: string
  readonly record: Either.Either<{ readonly name: string; readonly server?: string; readonly state?: string }, string>
}

export interface BatchPlan {
  readonly _tag: "Batch"
  readonly endpoint: string
  /** The kind the batch runs on, as svc_list names it. */
  readonly kind: string
  readonly pattern: string
  readonly tags: ReadonlyArray<string>
  /** The names matched now; Left: why they could not be read. */
  readonly matches: Either.Either<ReadonlyArray<string>, string>
}

export interface SyncPlan {
  readonly _tag: "Sync"
  readonly sync: string
  /** RunSync's `resource_type` and `resources`, when the call limits the run to them. */
  readonly only: { readonly type: string; readonly resources: ReadonlyArray<string> } | undefined
  readonly changes: Either.Either<SyncChanges, string>
}

export type Plan = DeletePlan | BatchPlan | SyncPlan

/** A plan and the words the question shows. */
export interface Planned {
  readonly plan: Plan
  readonly text: string
}
