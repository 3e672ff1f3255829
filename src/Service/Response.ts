/**
 * What an answer of the service means, as a pure function of its status and body,
 * so that the rules can be checked for every possible answer.
 */
import { type NamingShape, single } from "../Settings/Naming.js"
import { inJson, scrub, scrubValue } from "../Shared/Secrets.js"
import { complete } from "./CutJson.js"
import { SvcAuthError, SvcResponseError, SvcServiceError, type Target } from "./Errors.js"

export type Outcome =
  /** `text` is the body as sent, kept so that it can be passed on without printing `value` again. */
  | {
      readonly _tag: "Ok"
      readonly value: unknown
      readonly text: string
      /** The byte cap the body was cut at: `value` is what arrived of it, closed (CutJson.ts). */
      readonly cut?: number
    }
  | { readonly _tag: "Failed"; readonly error: SvcServiceError | SvcResponseError }
  /** The service refused the credentials: the caller may log in again and retry once. */
  | { readonly _tag: "CredentialsInvalid"; readonly status: number; readonly error: string }

/** The service answers an expired or invalid JWT with 500 and this text, not with 401. */
export const INVALID_CREDENTIALS = "Invalid user credentials"

/**
 * The service's answer to an endpoint its version lacks, e.g. ``unknown variant `UpdateUserGroup` ``.
 * The endpoint's own name must follow: a params field with a bad enum value gets the same words.
 */
const namesUnknownEndpoint = (error: string, endpoint: string) => error.includes(`unknown variant \`${endpoint}\``)

/** Long enough to show what went wrong, short enough for an assistant's context. */
const MAX_SNIPPET = 500

export const snippet = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > MAX_SNIPPET ? `${flat.slice(0, MAX_SNIPPET)}… (${flat.length} chars)` : flat
}

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) }
  }
}

export interface ErrorBody {
  readonly error: string
  readonly trace: ReadonlyArray<string>
}

/** Reads `{error, trace}` when the body has that shape; otherwise keeps what the body said. */
export const errorBody = (status: number, text: string): ErrorBody => {
  const parsed = parseJson(text)
  if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null) {
    const { error, trace } = parsed.value as { error?: unknown; trace?: unknown }
    if (typeof error === "string") {
      return {
        error,
        trace: Array.isArray(trace)
          ? trace.map((line) => (typeof line === "string" ? line : JSON.stringify(line)))
          : [],
      }
    }
  }
  const shown = snippet(text)
  return { error: shown === "" ? `HTTP ${status} with an empty body` : shown, trace: [] }
}

/** Headers of an answer that change what it means. */
export interface AnswerHeaders {
  /** Retry-After, with a 429 or 503. */
  readonly retryAfter?: string
  /** Where a redirect points, absolute. */
  readonly location?: string
  /** Not a header: the byte cap, when the body was cut at it. */
  readonly cutAt?: number
}

/**
 * The wait an answer asks for: its Retry-After, or for a 429 the seconds its
 * text names ("Too many attempts | Try again in 12s").
 */
export const retryAfterOf = (status: number, retryAfter: string | undefined, error: string): string | undefined =>
  retryAfter?.slice(0, 64) ?? (status === 429 ? /try again in (\d+)\s*s/i.exec(error)?.[1] : undefined)

/** How many more failed authentications the service allows: "Invalid user credentials | You have 4 attempts remaining". */
export const attemptsRemaining = (error: string): number | undefined => {
  const match = /you have (\d+) attempts? remaining/i.exec(error)
  return match === null ? undefined : Number(match[1])
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** A redirect that says where to: never followed, since the credentials would go with it. */
export const isRedirect = (status: number, location: string | undefined): location is string =>
  REDIRECTS.has(status) && location !== undefined

/** A successful answer cut at the byte cap: what arrived whole of it, or, where nothing did, why not. */
const cutOutcome = (call: Target, status: number, text: string, cutAt: number): Outcome => {
  const completed = complete(text)
  const parsed = completed === undefined ? undefined : parseJson(completed)
  return completed !== undefined && parsed?.ok === true
    ? { _tag: "Ok", value: parsed.value, text: completed, cut: cutAt }
    : {
        _tag: "Failed",
        error: new SvcResponseError({
          call,
          status,
          detail: `the answer passed ${cutAt} bytes, the most read of one, and nothing of it arrived whole; ask for less`,
        }),
      }
}

const interpret = (
  call: Target,
  status: number,
  text: string,
  headers: AnswerHeaders = {},
  naming: NamingShape = single,
): Outcome => {
  if (status >= 200 && status < 300) {
    if (text.trim() === "") {
      return { _tag: "Failed", error: new SvcResponseError({ call, status, detail: "the body is empty" }) }
    }
    if (headers.cutAt !== undefined) return cutOutcome(call, status, text, headers.cutAt)
    const parsed = parseJson(text)
    return parsed.ok
      ? { _tag: "Ok", value: parsed.value, text }
      : {
          _tag: "Failed",
          error: new SvcResponseError({
            call,
            status,
            detail: `${parsed.reason}; it began: ${snippet(text).slice(0, 120)}`,
          }),
        }
  }
  const body = errorBody(status, text)
  if (status === 401 || (status === 500 && body.error.includes(INVALID_CREDENTIALS))) {
    return { _tag: "CredentialsInvalid", status, error: body.error }
  }
  if (isRedirect(status, headers.location)) {
    const location = headers.location.slice(0, 2000)
    return {
      _tag: "Failed",
      error: new SvcServiceError({
        call,
        reason: "Redirected",
        status,
        ...body,
        location,
        urlVariable: naming.variable("SVC_URL"),
      }),
    }
  }
  const retryAfter = retryAfterOf(status, headers.retryAfter, body.error)
  const wait = retryAfter === undefined ? {} : { retryAfter }
  const reason =
    status === 429 ? "RateLimited" : namesUnknownEndpoint(body.error, call.endpoint) ? "UnknownEndpoint" : "Status"
  return { _tag: "Failed", error: new SvcServiceError({ call, reason, status, ...body, ...wait }) }
}

/**
 * What the client makes of an answer. Its texts are scrubbed of secrets after
 * parsing, since a body may echo what was sent, JSON-escaped.
 */
export const fromResponse = (
  call: Target,
  status: number,
  text: string,
  secrets: ReadonlyArray<string>,
  headers?: AnswerHeaders,
  naming: NamingShape = single,
): Outcome => {
  const outcome = interpret(call, status, text, headers, naming)
  const clean = (value: string) => scrub(value, secrets)
  switch (outcome._tag) {
    case "Ok": {
      // Rare: an answer that echoes this server's own credentials is scrubbed too.
      if (!inJson(outcome.text, secrets)) return outcome
      const value = scrubValue(outcome.value, secrets)
      return { ...outcome, value, text: JSON.stringify(value) }
    }
    case "CredentialsInvalid":
      return { ...outcome, error: clean(outcome.error) }
    case "Failed": {
      const { error } = outcome
      return {
        _tag: "Failed",
        error:
          error._tag === "SvcServiceError"
            ? new SvcServiceError({
                ...error,
                error: clean(error.error),
                trace: error.trace.map(clean),
                ...(error.location === undefined ? {} : { location: clean(error.location) }),
              })
            : new SvcResponseError({ ...error, detail: clean(error.detail) }),
      }
    }
  }
}

/** The error for credentials the service still refuses after any renewal. */
export const rejected = (
  call: Target,
  outcome: { readonly status: number; readonly error: string },
  method: "api-key" | "caller-key" | "jwt",
  naming: NamingShape = single,
  from: readonly [key: string, secret: string] = ["SVC_API_KEY", "SVC_API_SECRET"],
): SvcAuthError =>
  new SvcAuthError({
    call,
    reason: "Rejected",
    status: outcome.status,
    detail:
      method === "api-key"
        ? `the service refused the API key (${outcome.error}); check ${naming.variable(from[0])} and ${naming.variable(from[1])}, and whether the key has expired`
        : method === "caller-key"
          ? `the service refused the caller's API key (${outcome.error}); check the ${naming.header("Key")} and ${naming.header("Secret")} the client sends, and whether the key has expired`
          : `the service refused a fresh login token (${outcome.error})`,
  })
