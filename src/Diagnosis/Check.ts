/**
 * The diagnosis `svc-mcp check` prints and `GET /readyz` answers from: can
 * this configuration reach the service and log in? Each step says what it
 * found and, when it failed, what to do.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import { Auth } from "../Auth.js"
import { SvcConfig } from "../Config.js"
import { redirectAdvice, retryAfterText, type SvcError } from "../Service/Errors.js"
import { attemptsRemaining, isRedirect, snippet } from "../Service/Response.js"
import * as SvcTransport from "../Service/Transport.js"
import { ADDED_IN_2_3_3, compare, SPEC_VERSION } from "../Service/Versions.js"
import { Naming } from "../Settings/Naming.js"
import * as ParamsSettings from "../Settings/ParamsCheck.js"
import type { ConfigError } from "../Settings/Read.js"
import { Store } from "../Store/Store.js"
import { SvcClient } from "../SvcClient.js"
import * as ParamsCheck from "../Tools/Params/ParamsCheck.js"

export interface Step {
  readonly name: string
  readonly status: "ok" | "warn" | "fail"
  readonly detail: string
  readonly hint?: string
}

export interface Report {
  /** Which of several services (SVC_SERVICES) this report is of; absent for the one unnamed service. */
  readonly service?: string
  /** The variables the credentials come from, as this service reads them. */
  readonly credentials: string
  readonly url: string
  readonly method: "api-key" | "caller-key" | "jwt"
  readonly steps: ReadonlyArray<Step>
  readonly ok: boolean
}

/** A variable as the service being checked reads it: SVC_PROD_URL for SVC_URL among several services. */
type Named = (single: string) => string

const redirectHint = (v: Named) =>
  `set ${v("SVC_URL")} as the detail says: redirects are not followed, so that the credentials go only to ${v("SVC_URL")}`

const hintFor = (
  error: SvcError,
  method: Report["method"],
  v: Named,
  from: readonly [key: string, secret: string] = ["SVC_API_KEY", "SVC_API_SECRET"],
): string => {
  switch (error._tag) {
    case "SvcTimeoutError":
      return `the service did not answer in time: is ${v("SVC_URL")} right, and is the service up? Raise ${v("SVC_TIMEOUT_MS")} if it is just slow`
    case "SvcUnreachableError":
      switch (error.reason) {
        case "Refused":
          return `nothing listens there: check the host and port in ${v("SVC_URL")}, and that the service is running`
        case "DNS":
          return `the host name does not resolve: check the host in ${v("SVC_URL")}`
        case "TLS":
          return `the TLS handshake failed: check the certificate (a self-signed one needs NODE_EXTRA_CA_CERTS), or http vs https in ${v("SVC_URL")}`
        default:
          return `the connection failed: check ${v("SVC_URL")} and the network between here and the service`
      }
    case "SvcAuthError":
      switch (error.reason) {
        case "LoginRefused":
          return `check ${v("SVC_INIT_ADMIN_USERNAME")} and ${v("SVC_INIT_ADMIN_PASSWORD")}${lockout(error.detail)}`
        case "RateLimited":
          return `the service refuses this address for now after too many failed logins: wait as it says, then check ${v("SVC_INIT_ADMIN_USERNAME")} and ${v("SVC_INIT_ADMIN_PASSWORD")} before trying again`
        case "SecondFactor":
          return `this account needs a second factor: create an API key and set ${v("SVC_API_KEY")} and ${v("SVC_API_SECRET")}`
        case "Rejected":
          return method !== "jwt"
            ? `check ${v(from[0])} and ${v(from[1])}; the key may have expired or been deleted${lockout(error.detail)}`
            : "the service refused a fresh token: check the user is enabled"
        case "Redirected":
          return redirectHint(v)
        default:
          return `the login answer was not understood: is ${v("SVC_URL")} the service's base URL?`
      }
    case "SvcServiceError":
      switch (error.reason) {
        case "Redirected":
          return redirectHint(v)
        case "RateLimited":
          return `the service refuses every call from this address for now, after too many failed authentications (from this server or another client here): wait${
            error.retryAfter === undefined ? "" : ` ${retryAfterText(error.retryAfter)}`
          }, then check the credentials before trying again`
        default:
          return `the service answered unexpectedly: is ${v("SVC_URL")} the service's base URL (not its web page)?`
      }
    case "SvcResponseError":
      return `the service answered unexpectedly: is ${v("SVC_URL")} the service's base URL (not its web page)?`
  }
}

/** The service's count of failed authentications left before it refuses this address for a while. */
const lockout = (detail: string): string => {
  const left = attemptsRemaining(detail)
  return left === undefined
    ? ""
    : `. The service allows ${left} more failed attempt${left === 1 ? "" : "s"} from this address, then refuses every call from it for a while: fix the credentials before trying again`
}

const VERSION_CALL = { group: "", endpoint: "version" }

const reach = Effect.gen(function* () {
  const config = yield* SvcConfig
  const http = yield* HttpClient.HttpClient
  const started = Date.now()
  const { status, text, location } = yield* SvcTransport.send(
    http,
    VERSION_CALL,
    HttpClientRequest.get(`${config.url}/version`),
    config.timeoutMs,
  )
  return { status, text: text.trim(), location, ms: Date.now() - started }
})

/**
 * What the credentials prove: one cheap authenticated read (with a login, it
 * logs in first). Readiness without credentials of the server's own asks
 * nothing of them, and so takes no such step.
 */
export const authStepWith = (
  from?: readonly [key: string, secret: string],
): Effect.Effect<Step, never, Auth | SvcClient> =>
  Effect.gen(function* () {
    const auth = yield* Auth
    const client = yield* SvcClient
    const v = (yield* Naming).variable
    const authed = yield* Effect.either(client.call("read", "GetVersion", {}))
    if (authed._tag === "Left") {
      const error = authed.left
      // The variables the key was read from, as set: SVC_API_SECRET_FILE names the file to look at.
      return { name: "auth", status: "fail", detail: error.message, hint: hintFor(error, auth.method, v, from) }
    }
    return {
      name: "auth",
      status: "ok",
      detail: auth.method !== "jwt" ? "the API key was accepted" : "logged in, and the token was accepted",
    }
  })

/** The step with the plain variables' names in its hint: as readiness takes it. */
export const authStep: Effect.Effect<Step, never, Auth | SvcClient> = authStepWith()

/**
 * The steps, in order: the service reached at its URL, its version, then
 * `authenticate` when given, then the params definitions in force (as `params`
 * say) against that version; the shared store's last. A service not reached
 * ends the steps there.
 */
export const steps = <R = never>(
  params: Effect.Effect<ParamsSettings.ParamsSettings, ConfigError>,
  authenticate?: Effect.Effect<Step, never, R>,
): Effect.Effect<ReadonlyArray<Step>, never, SvcConfig | HttpClient.HttpClient | Store | R> =>
  Effect.gen(function* () {
    // Among several services each report names that service's own variables (SVC_PROD_URL).
    const v = (yield* Naming).variable
    const found: Array<Step> = []
    const shared = yield* storeStep
    const done = () => (shared === undefined ? found : [...found, shared])

    const reached = yield* Effect.either(reach)
    if (reached._tag === "Left") {
      // A failure to reach is never the credentials': the hint does not depend on the method.
      found.push({
        name: "reach",
        status: "fail",
        detail: reached.left.message,
        hint: hintFor(reached.left, "api-key", v),
      })
      return done()
    }
    const { status, text, location, ms } = reached.right
    if (isRedirect(status, location)) {
      found.push({
        name: "reach",
        status: "fail",
        detail: `GET /version: ${redirectAdvice(VERSION_CALL, location)} (it answered ${status})`,
        hint: redirectHint(v),
      })
      return done()
    }
    const looksLikeVersion = /^v?\d+\.\d+\.\d+/.test(text)
    if (status !== 200 || !looksLikeVersion) {
      found.push({
        name: "reach",
        status: "fail",
        detail: `GET /version answered ${status}: ${snippet(text).slice(0, 120) || "(empty)"}`,
        hint: `this does not look like the service: ${v("SVC_URL")} must be its base URL, the one its API answers under`,
      })
      return done()
    }
    found.push({ name: "reach", status: "ok", detail: `GET /version answered in ${ms} ms` })
    found.push(
      compare(text, SPEC_VERSION) < 0
        ? {
            name: "version",
            status: "warn",
            detail: `${text}, older than ${SPEC_VERSION}: ${ADDED_IN_2_3_3.size} endpoints the tools name are missing (${[...ADDED_IN_2_3_3].join(", ")})`,
            hint: `upgrade the service to ${SPEC_VERSION} or newer to use them; everything else works`,
          }
        : { name: "version", status: "ok", detail: text },
    )
    if (authenticate !== undefined) found.push(yield* authenticate)
    found.push(yield* ParamsCheck.stepFor(params, text))
    return done()
  })

type Needs = SvcConfig | Auth | SvcClient | HttpClient.HttpClient | Store

/**
 * The report, with the params step as `params` say: the single service's
 * settings, or one of several services' own (Settings/ParamsCheck.ts `loadFor`),
 * compared with that service's version.
 */
export const runWith = (
  params: Effect.Effect<ParamsSettings.ParamsSettings, ConfigError>,
): Effect.Effect<Report, never, Needs> =>
  Effect.gen(function* () {
    const config = yield* SvcConfig
    const auth = yield* Auth
    const naming = yield* Naming
    const v = naming.variable
    // The variables the key was read from, for the hint of a refused one (SVC_API_SECRET_FILE...).
    const from = config.credentials._tag === "ApiKey" ? config.credentials.from : undefined
    const all = yield* steps(params, authStepWith(from))
    return {
      ...(naming.service._tag === "Some" ? { service: naming.service.value } : {}),
      credentials:
        auth.method !== "jwt"
          ? `API key (${v("SVC_API_KEY")}, ${v("SVC_API_SECRET")})`
          : `login (${v("SVC_INIT_ADMIN_USERNAME")}, ${v("SVC_INIT_ADMIN_PASSWORD")})`,
      url: config.url,
      method: auth.method,
      steps: all,
      ok: all.every((s) => s.status !== "fail"),
    }
  })

/**
 * The shared store (SVC_MCP_STORE), when one is configured: a warning, not a
 * failure, when it does not answer, as reads and unconfirmed calls go on without it.
 */
const storeStep: Effect.Effect<Step | undefined, never, Store> = Effect.flatMap(Store, (store) =>
  store._tag === "None"
    ? Effect.succeed(undefined)
    : Effect.map(
        store.value.status,
        (status): Step =>
          status.up
            ? { name: "store", status: "ok", detail: `the shared store at ${status.where} answers` }
            : {
                name: "store",
                status: "warn",
                detail: `the shared store at ${status.where} does not answer (${status.detail ?? "down"})`,
                hint: "confirmed calls are refused and refused keys are remembered per process until it answers: check SVC_MCP_STORE, its password and the store itself",
              },
      ),
)

export const run: Effect.Effect<Report, never, Needs> = runWith(ParamsSettings.load)

const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const

/** One step as its lines: its mark, name and detail, then its hint. */
export const formatStep = (step: Step): ReadonlyArray<string> => [
  `  [${mark[step.status]}] ${step.name.padEnd(8)} ${step.detail}`,
  ...(step.hint === undefined ? [] : [`           ${"".padEnd(8)} -> ${step.hint}`]),
]

/** The guard's line: whose window a change falls in, as the transport these settings serve on keys it. */
export const guardLine = (guard: { readonly words: string; readonly shared: boolean }, http: boolean): string =>
  `  [${guard.shared ? "warn" : "ok  "}] guard    over ${http ? "HTTP" : "stdio"}, ${guard.words}`

/** The last line: all good, or not, of every step printed above it. */
export const verdict = (ok: boolean): string => (ok ? "All good." : "Not ready: see the failed step above.")

/** The report as lines for a person, its verdict last; it holds no secret, as the steps hold none. */
export const format = (report: Report): string => `${formatSteps(report)}\n${verdict(report.ok)}`

/** The report's lines without the verdict, for a check that has more steps to print after them. */
export const formatSteps = (report: Report): string => {
  const lines = [
    report.service === undefined ? "svc-mcp check" : `svc-mcp check: ${report.service}`,
    `  service   ${report.url}`,
    `  auth      ${report.credentials}`,
  ]
  for (const step of report.steps) lines.push(...formatStep(step))
  return lines.join("\n")
}
