/**
 * Every way a call to the service can fail. The client fails with these
 * and nothing else, so callers can match on `_tag` exhaustively.
 */
import * as Data from "effect/Data"
import { ADDED_IN_2_3_3, SPEC_VERSION } from "./ServiceVersion.js"

/** What was called: carried by every error so a message can say where it happened. */
export interface Call {
  readonly group: string
  readonly endpoint: string
}

const path = (call: Call) => `${call.group}/${call.endpoint}`

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`)

export class SvcTimeoutError extends Data.TaggedError("SvcTimeoutError")<{
  readonly call: Call
  readonly timeoutMs: number
}> {
  override get message(): string {
    return `${path(this.call)} timed out after ${seconds(this.timeoutMs)}`
  }
}

export class SvcUnreachableError extends Data.TaggedError("SvcUnreachableError")<{
  readonly call: Call
  /** `Refused`, `DNS`, `TLS`, `Reset` or `Network` when nothing more precise is known. */
  readonly reason: "Refused" | "DNS" | "TLS" | "Reset" | "Network"
  readonly detail: string
}> {
  override get message(): string {
    return `${path(this.call)} could not reach the service (${this.reason}): ${this.detail}`
  }
}

export class SvcServiceError extends Data.TaggedError("SvcServiceError")<{
  readonly call: Call
  /** `UnknownEndpoint` when the service's version does not have the endpoint. */
  readonly reason: "Status" | "UnknownEndpoint"
  readonly status: number
  readonly error: string
  readonly trace: ReadonlyArray<string>
  /** The service's Retry-After: seconds, or an HTTP date. */
  readonly retryAfter?: string
}> {
  override get message(): string {
    if (this.retryAfter !== undefined && this.reason === "Status") {
      return `${path(this.call)} failed: the service answered ${this.status}: ${this.error} (it asks to retry after ${/^\d+$/.test(this.retryAfter) ? `${this.retryAfter} s` : this.retryAfter})`
    }
    return this.reason === "UnknownEndpoint"
      ? `${path(this.call)} is not offered by this version of the service (it answered ${this.status}: ${this.error})${
          ADDED_IN_2_3_3.has(path(this.call)) ? `; the endpoint was added in service API ${SPEC_VERSION}` : ""
        }`
      : `${path(this.call)} failed: the service answered ${this.status}: ${this.error}`
  }
}

export class SvcResponseError extends Data.TaggedError("SvcResponseError")<{
  readonly call: Call
  readonly status: number
  readonly detail: string
}> {
  override get message(): string {
    return `${path(this.call)} answered ${this.status} with a body that is not JSON: ${this.detail}`
  }
}

export class SvcAuthError extends Data.TaggedError("SvcAuthError")<{
  readonly call: Call
  /**
   * `LoginRefused`: wrong username or password. `RateLimited`: too many login attempts.
   * `SecondFactor`: the account needs TOTP or a passkey, which a server cannot give.
   * `LoginFailed`: the login call failed in another way (the status and the service's text say how).
   * `BadLoginResponse`: the login answer was not understood.
   * `Rejected`: the service refused the API key, or a fresh token.
   */
  readonly reason: "LoginRefused" | "RateLimited" | "SecondFactor" | "LoginFailed" | "BadLoginResponse" | "Rejected"
  readonly status?: number
  readonly detail: string
}> {
  override get message(): string {
    return `${path(this.call)}: authentication failed (${this.reason}): ${this.detail}`
  }
}

export type SvcError = SvcTimeoutError | SvcUnreachableError | SvcServiceError | SvcResponseError | SvcAuthError
