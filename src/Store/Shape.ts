/**
 * What the shared store is to the parts that use it (Store.ts says what it is for): its tag, the
 * shape of its commands and its one error. Apart from the client over node-redis (Redis.ts), so that
 * a part that reads the store loads none of the client with it.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** The store did not answer (down, timed out, or refused the command). */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly detail: string
}> {
  override get message(): string {
    return `the shared store did not answer (${this.operation}: ${this.detail})`
  }
}

export interface StoreStatus {
  readonly up: boolean
  /** Where the store is (scheme, host, port): never a credential. */
  readonly where: string
  /** Why it is down; absent when up. */
  readonly detail?: string
}

export interface StoreShape {
  /** Scheme, host and port, for logs and reports. */
  readonly where: string
  readonly set: (key: string, value: string, ttlMs: number) => Effect.Effect<void, StoreError>
  /** True when the key was absent and is now set; false when it was there already. */
  readonly setIfAbsent: (key: string, value: string, ttlMs: number) => Effect.Effect<boolean, StoreError>
  /**
   * Sets the value only where the key is there, and gives the value it had, in
   * one command (SET XX GET): of concurrent callers exactly one sees what was
   * there before any of them.
   */
  readonly replaceIfPresent: (
    key: string,
    value: string,
    ttlMs: number,
  ) => Effect.Effect<Option.Option<string>, StoreError>
  /** Answered from this process's copy while the store has said of no change to the key since it was read. */
  readonly get: (key: string) => Effect.Effect<Option.Option<string>, StoreError>
  readonly remove: (key: string) => Effect.Effect<void, StoreError>
  /**
   * Appends `line` to the stream at `key` (XADD), trimming it to about `cap`
   * entries (MAXLEN ~), oldest first: the audit log's copy (Operations/Audit.ts).
   */
  readonly appendStream: (key: string, line: string, cap: number) => Effect.Effect<void, StoreError>
  /** Whether the store answers now (a PING within the command time-out). */
  readonly status: Effect.Effect<StoreStatus>
  /**
   * A keyed hash (HMAC-SHA256 under the replicas' shared key) of something
   * that must not be stored as it is, such as a caller key's fingerprint.
   */
  readonly keyed: (text: string) => string
  /** `text` sealed (AES-256-GCM under the replicas' shared key) for keeping under `label` (Sealed.ts). */
  readonly seal: (text: string, label: string) => string
  /** What `seal` sealed for `label`; none for anything else (another label, another key, altered). */
  readonly open: (sealed: string, label: string) => Option.Option<string>
}

/**
 * The shared store, when one is configured; None means every part keeps its
 * own memory for this process (`layerOff`, what the bundles provide when no
 * store is provided beneath them).
 */
export class Store extends Context.Tag("svc-mcp/Store")<Store, Option.Option<StoreShape>>() {}
