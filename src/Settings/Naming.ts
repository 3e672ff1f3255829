/**
 * How a service's variables and headers are named. With SVC_SERVICES each
 * name N is configured by the variables of a single service with N after
 * `SVC_` (SVC_PROD_URL, SVC_PROD_API_KEY, SVC_PROD_MODE...); every message
 * about a service is made with its naming, so it names what the operator set.
 * Apart from Settings/Registry.ts, which reads SVC_SERVICES with the helpers
 * of Settings/Read.ts, as those helpers name their refusals' variables with it.
 */
import * as Context from "effect/Context"
import * as Option from "effect/Option"

/** The variables each service has its own of (each secret also in its `_FILE` form). */
export const PER_SERVICE: ReadonlyArray<string> = [
  "URL",
  "API_KEY",
  "API_SECRET",
  "INIT_ADMIN_USERNAME",
  "INIT_ADMIN_PASSWORD",
  "API_KEY_FILE",
  "API_SECRET_FILE",
  "INIT_ADMIN_USERNAME_FILE",
  "INIT_ADMIN_PASSWORD_FILE",
  "TIMEOUT_MS",
  "MODE",
  "ALLOW",
  "DENY",
  "CONFIRM",
  "ACCESS_CHANGES",
]

/** A single service's forms of them: SVC_URL, SVC_API_KEY... */
export const FAMILY: ReadonlySet<string> = new Set(PER_SERVICE.map((suffix) => `SVC_${suffix}`))

/**
 * Service `name`'s own form of a server's variable: SVC_PROD_CHECK_PARAMS for
 * SVC_CHECK_PARAMS and prod (a `-` in the name becomes `_`).
 */
export const own = (name: string, single: string): string =>
  `SVC_${name.toUpperCase().replace(/-/g, "_")}_${single.slice("SVC_".length)}`

/** SVC_URL as service `name` reads it, e.g. SVC_PROD_URL for prod; a variable not of the family is the server's. */
export const variable = (name: string, single: string): string => (FAMILY.has(single) ? own(name, single) : single)

const title = (name: string) =>
  name
    .split("-")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("-")

/** The header of service `name`'s caller key or secret (per-request mode), as written: `X-Svc-Prod-Api-Key`. */
export const callerHeader = (name: string, part: "Key" | "Secret"): string => `X-Svc-${title(name)}-Api-${part}`

/** How messages name a service's variables and headers: as they are for one unnamed service, or service `name`'s own. */
export interface NamingShape {
  readonly service: Option.Option<string>
  /** The variable as this service reads it: SVC_PROD_MODE for SVC_MODE and prod. */
  readonly variable: (single: string) => string
  /** The header a caller sends this service's key or secret in: X-Svc-Api-Key, or X-Svc-Prod-Api-Key. */
  readonly header: (part: "Key" | "Secret") => string
}

export const single: NamingShape = {
  service: Option.none(),
  variable: (name) => name,
  header: (part) => `X-Svc-Api-${part}`,
}

export const naming = (name: string): NamingShape => ({
  service: Option.some(name),
  variable: (single) => variable(name, single),
  header: (part) => callerHeader(name, part),
})

/**
 * The naming of the service whose parts are being built (or whose call is
 * served): messages are made with it, naming the service's own variables,
 * start-up refusals included (Settings/Read.ts). Provided by
 * Settings/Registry.reading while a service's layers are built, and in each
 * service's context (Registry/Registry.ts); by default a single service's.
 */
export class Naming extends Context.Reference<Naming>()("svc-mcp/Naming", {
  defaultValue: (): NamingShape => single,
}) {}
