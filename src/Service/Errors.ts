/**
 * Every way a call to the service can fail. The client fails with these
 * and nothing else, so callers can match on `_tag` exhaustively.
 */
import * as Data from "effect/Data"
import { ADDED_IN_2_3_3, SPEC_VERSION } from "./Versions.js"

/** What was called: carried by every error so a message can say where it happened. */
export interface Target {
  readonly group: string
  readonly endpoint: string
}

/** `group/Endpoint`, as the service's URL paths name a call. */
export const callPath = (call: Target): string => `${call.group}/${call.endpoint}`

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`)

export class SvcTimeoutError extends Data.TaggedError("SvcTimeoutError")<{
  readonly call: Target
  readonly timeoutMs: number
}> {
  override get message(): string {
    return `${callPath(this.call)} timed out after ${seconds(this.timeoutMs)}`
  }
}

export class SvcUnreachableError extends Data.TaggedError("SvcUnreachableError")<{
  readonly call: Target
  /** `Refused`, `DNS`, `TLS`, `Reset` or `Network` when nothing more precise is known. */
  readonly reason: "Refused" | "DNS" | "TLS" | "Reset" | "Network"
  readonly detail: string
}> {
  override get message(): string {
    return `${callPath(this.call)} could not reach the service (${this.reason}): ${this.detail}`
  }
}

/** What to set SVC_URL to, when the service redirected `call` to `location`: the location minus the call's own path. */
export const suggestedUrl = (call: Target, location: string): string | undefined => {
  let url: URL
  try {
    url = new URL(location)
  } catch {
    return undefined
  }
  const suffix = call.group === "" ? `/${call.endpoint}` : `/${callPath(call)}`
  const pathname = url.pathname.replace(/\/+$/, "")
  if (!pathname.endsWith(suffix)) return undefined
  return `${url.origin}${pathname.slice(0, -suffix.length)}`
}

/** The sentence that says where a redirect points and what to do about it. */
export const redirectAdvice = (call: Target, location: string, urlVariable = "SVC_URL"): string => {
  const url = suggestedUrl(call, location)
  return url === undefined
    ? `the service redirected to ${location}, which is not this endpoint under another base URL: check ${urlVariable} (redirects are not followed, so that credentials go only to ${urlVariable})`
    : `the service redirected to ${location}; set ${urlVariable} to ${url} (redirects are not followed, so that credentials go only to ${urlVariable})`
}

/** A Retry-After as words: seconds, or the date as given. */
export const retryAfterText = (retryAfter: string) => (/^\d+$/.test(retryAfter) ? `${retryAfter} s` : retryAfter)

export class SvcServiceError extends Data.TaggedError("SvcServiceError")<{
  readonly call: Target
  /**
   * `UnknownEndpoint` when the service's version does not have the endpoint;
   * `Redirected` for a 301/302/303/307/308 with a Location; `RateLimited` for a 429.
   */
  readonly reason: "Status" | "UnknownEndpoint" | "Redirected" | "RateLimited"
  readonly status: number
  readonly error: string
  readonly trace: ReadonlyArray<string>
  /** The service's Retry-After (seconds, or an HTTP date), or the wait a 429's text names. */
  readonly retryAfter?: string
  /** Where a redirect pointed, absolute. */
  readonly location?: string
  /** The variable that sets the service's URL (SVC_URL, or a named service's own), for a redirect's advice. */
  readonly urlVariable?: string
}> {
  override get message(): string {
    const at = callPath(this.call)
    if (this.reason === "UnknownEndpoint") {
      return `${at} is not offered by this version of the service (it answered ${this.status}: ${this.error})${
        ADDED_IN_2_3_3.has(at) ? `; the endpoint was added in service API ${SPEC_VERSION}` : ""
      }`
    }
    if (this.reason === "Redirected") {
      return `${at} failed: ${redirectAdvice(this.call, this.location ?? "", this.urlVariable)} (it answered ${this.status})`
    }
    const wait = this.retryAfter === undefined ? undefined : retryAfterText(this.retryAfter)
    if (this.reason === "RateLimited") {
      return `${at} failed: the service refuses calls from this address for now (it answered 429: ${this.error}), as it does after too many failed authentications; ${
        wait === undefined ? "wait before trying again" : `retry after ${wait}`
      }`
    }
    return `${at} failed: the service answered ${this.status}: ${this.error}${wait === undefined ? "" : ` (it asks to retry after ${wait})`}`
  }
}

export class SvcResponseError extends Data.TaggedError("SvcResponseError")<{
  readonly call: Target
  readonly status: number
  readonly detail: string
  /** "NotWhole": the body passed the bound of a read made to decide on it (SvcClient's "whole" reading). */
  readonly reason?: "NotWhole"
}> {
  override get message(): string {
    return this.reason === "NotWhole"
      ? `${callPath(this.call)} answered ${this.status} with a body too long to read whole: ${this.detail}`
      : `${callPath(this.call)} answered ${this.status} with a body that is not JSON: ${this.detail}`
  }
}

export class SvcAuthError extends Data.TaggedError("SvcAuthError")<{
  readonly call: Target
  /**
   * `LoginRefused`: wrong username or password. `RateLimited`: too many login attempts.
   * `SecondFactor`: the account needs TOTP or a passkey, which a server cannot give.
   * `LoginFailed`: the login call failed in another way (the status and the service's text say how).
   * `BadLoginResponse`: the login answer was not understood.
   * `Rejected`: the service refused the API key, or a fresh token.
   * `Redirected`: the login was redirected (not followed: the password goes to SVC_URL only).
   */
  readonly reason:
    | "LoginRefused"
    | "RateLimited"
    | "SecondFactor"
    | "LoginFailed"
    | "BadLoginResponse"
    | "Rejected"
    | "Redirected"
  readonly status?: number
  readonly detail: string
}> {
  override get message(): string {
    return `${callPath(this.call)}: authentication failed (${this.reason}): ${this.detail}`
  }
}

export type SvcError = SvcTimeoutError | SvcUnreachableError | SvcServiceError | SvcResponseError | SvcAuthError
