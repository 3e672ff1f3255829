/**
 * The plan a confirmation question shows, as data: what a delete removes, what
 * a batch's pattern matches, what a sync applies. A Left is a read that failed,
 * in words. And what a preview is: what its question reads of a call before
 * asking (Previews.ts, a table by endpoint).
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Option from "effect/Option"
import type { FileDiff } from "../Shared/Diff.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import type { SvcClient } from "../SvcClient.js"
import type { Invocation } from "../Tools/Invocation.js"
import type { NamesShape } from "../Tools/Names/Names.js"
import type { SyncChanges } from "../Tools/Sync/SyncChanges.js"

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
  /** The names matched now, the first few; Left: why they could not be read. */
  readonly matches: Either.Either<ReadonlyArray<string>, string>
  /** How many more match than `matches` lists. */
  readonly more: number
}

export interface SyncPlan {
  readonly _tag: "Sync"
  readonly sync: string
  /** RunSync's `resource_type` and `resources`, when the call limits the run to them. */
  readonly only: { readonly type: string; readonly resources: ReadonlyArray<string> } | undefined
  readonly changes: Either.Either<SyncChanges, string>
}

/** SVC_REACH=all: what UpdateResourceMeta changes of a resource's tags, description and template flag. */
export interface MetaPlan {
  readonly _tag: "Meta"
  /** The ResourceTarget's type, e.g. "Deployment". */
  readonly type: string
  /** As the call names it: an id or a name. */
  readonly target: string
  readonly record: Either.Either<
    {
      readonly name: string
      /** By name: the tags now and after, and of those after, the ones the service makes anew. */
      readonly tags?: {
        readonly now: ReadonlyArray<string>
        readonly after: ReadonlyArray<string>
        readonly created: ReadonlyArray<string>
      }
      readonly description?: { readonly now: string; readonly after: string }
      readonly template?: { readonly now: boolean; readonly after: boolean }
    },
    string
  >
}

/** SVC_REACH=all: what a file write changes, in lines; its text masked, as it may hold what the infrastructure wrote. */
export interface FilePlan {
  readonly _tag: "File"
  /** The selector's kind: stack, build or sync resource. */
  readonly kind: string
  readonly target: string
  readonly path: string
  /** The new contents' lines. */
  readonly lines: number
  readonly record: Either.Either<
    {
      readonly name: string
      /** Where the service writes it: on the host, or committed to a repository. */
      readonly where: string | undefined
      /** The file's lines now; "new" where there is no such file yet, "unread" where the service has not read its files. */
      readonly now: number | "new" | "unread"
      /** What changes, line by line; undefined where nothing does. */
      readonly diff: FileDiff | undefined
    },
    string
  >
}

/** SVC_REACH=all: who gets what on which target (users, groups, permissions, keys), said in words read before asking. */
export interface AccessPlan {
  readonly _tag: "Access"
  readonly selector: string
  readonly said: Either.Either<string, string>
}

export type Plan = DeletePlan | BatchPlan | SyncPlan | MetaPlan | FilePlan | AccessPlan

/** A plan and the words the question shows. */
export interface Planned {
  readonly plan: Plan
  readonly text: string
}

/** What a preview reads of the call asked: as it will be sent, the names of ids, and whether secrets are shown. */
export interface Asking {
  readonly invocation: Invocation
  readonly revealSecrets: boolean
  /** The names of ids (Tools/Names/Names.ts), shown for the ids a question names; None shows ids. */
  readonly names?: Option.Option<NamesShape> | undefined
}

/** What a preview needs: the service, and a pattern's reader for a batch's matches. */
export type Needs = SvcClient | PatternReader

/**
 * What a question shows of a call before asking, read just before: a plan, said by PlanText.ts,
 * then lines read beside it (or alone), which may read the plan. A read that fails is said, never
 * guessed around: neither fails.
 */
export interface Preview {
  readonly plan?: (asking: Asking) => Effect.Effect<Plan, never, Needs>
  readonly lines?: (asking: Asking, plan: Plan | undefined) => Effect.Effect<ReadonlyArray<string>, never, Needs>
}
