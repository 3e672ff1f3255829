/**
 * What the audit log is to the parts that write to it (Audit.ts says what it keeps): its lines, its
 * tag and its one error. Apart from the writer (AuditOpen.ts), so that a call's record loads none of
 * the writer when no log is kept.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { SecretPassed } from "../Call/Context.js"
import type { StoreShape } from "../Store/Store.js"

export interface AuditEntry {
  /** ISO 8601, when the call ended. */
  readonly time: string
  /** Which service (SVC_SERVICES), when several are configured. */
  readonly service?: string
  /** The caller's API key in per-request mode, else `server`. */
  readonly caller: string
  /** Who: the signed-in identity (`oauth:<name>`), the caller key's fingerprint (`key:sha256:...`), or `server`. */
  readonly who?: string
  /** The service user acting for a signed-in person, with the key minted for them (`svc-mcp:<name>`). */
  readonly acting?: string
  readonly tool: string
  readonly selector?: string
  /** `group/Endpoint`, when the arguments named one. */
  readonly endpoint?: string
  /** The resource the params name (its id or name), when they name one. */
  readonly target?: string
  /** The params as sent, credential fields and known secrets redacted. */
  readonly params?: unknown
  readonly outcome: "ok" | "error" | "refused" | "declined" | "cancelled" | "asked"
  /** `false` on the one line of a call refused, declined or held before anything was sent; absent on a change's outcome. */
  readonly sent?: false
  /** For an error or a refusal: the error's kind (as in the result's structured error). */
  readonly kind?: string
  readonly status?: number
  readonly reason?: string
  /** SVC_GUARD: what untrusted text the caller read just before this change, which is why it was confirmed. */
  readonly guarded?: string
  /** Why the call was asked (Call/Asked.ts): the setting, its pattern and what it matched, or the guard's rule. */
  readonly confirmation?: string
  /** The Update ids an execution started. */
  readonly update?: string | ReadonlyArray<string>
  /** A secret that passed on a page of svc-mcp's: which params, which way, and the person; never the secret. */
  readonly secret?: SecretLine
  readonly durationMs: number
}

/** A change about to be sent: who, what and why, before any of it goes out. */
export interface IntentEntry {
  readonly time: string
  readonly service?: string
  readonly caller: string
  readonly who: string
  readonly acting?: string
  readonly tool: string
  readonly selector?: string
  readonly endpoint?: string
  readonly target?: string
  readonly params?: unknown
  /** A digest of the params as sent, before redaction: keyed (HMAC) with SVC_AUDIT_KEY, else of the redacted params. */
  readonly paramsDigest?: string
  /** The confirmation the call went through: the setting, the pattern and what it matched, or the guard's rule. */
  readonly confirmation?: string
  readonly guarded?: string
  readonly secret?: SecretLine
}

/** A secret that passed, as a line records it: which params, which way, and the person it passed to or from (`who`). */
interface SecretLine extends SecretPassed {
  readonly person: string
}

export class AuditError extends Data.TaggedError("AuditError")<{
  readonly destination: string
  readonly cause: unknown
  /** An intent that could not be written: its change was not sent. */
  readonly unsent?: boolean
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    const why = `the audit log ${this.destination} cannot be written (${code ?? String(this.cause)})`
    return this.unsent === true ? `the change was not made: ${why}` : why
  }
}

export interface AuditLog {
  /** The file's path, or `stderr`. */
  readonly destination: string
  /** The chain's writer id, in every line. */
  readonly writer: string
  /** A record alone (a refusal, a question asked, a declined call): when this succeeds, it is in the file. */
  readonly write: (entry: AuditEntry) => Effect.Effect<void, AuditError>
  /** A change's intent, on the device when this succeeds (nothing may be sent before); its seq, which the outcome names. */
  readonly intent: (entry: IntentEntry) => Effect.Effect<number, AuditError>
  /** The outcome of the change whose intent has `intent`'s seq: in the file when this succeeds, on the device with the next flush. */
  readonly outcome: (intent: number, entry: AuditEntry) => Effect.Effect<void, AuditError>
  /** Why the last write failed, unless a write or a reopen has succeeded since. */
  readonly broken: () => AuditError | undefined
  /** Keys the params' digest (SVC_AUDIT_KEY), when a key is given. */
  readonly digestKey: Option.Option<Redacted.Redacted<Uint8Array>>
}

/** The audit log when one is kept; None, the default, when it is off. */
export class Audit extends Context.Reference<Audit>()("svc-mcp/Audit", {
  defaultValue: (): Option.Option<AuditLog> => Option.none(),
}) {}

/** About how many lines the shared store's stream keeps (XADD MAXLEN ~). */
export const STREAM_CAP = 100_000

export interface OpenOptions {
  readonly key?: Option.Option<Redacted.Redacted<Uint8Array>>
  readonly maxBytes?: Option.Option<number>
  readonly store?: Option.Option<StoreShape>
  readonly checkpointMs?: number
}
