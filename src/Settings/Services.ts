/**
 * Several services behind one server: SVC_SERVICES names them, and each name N
 * is configured by the variables of a single service with N after `SVC_`
 * (SVC_PROD_URL, SVC_PROD_API_KEY, SVC_PROD_MODE...). Each service's settings
 * are read by the same descriptions as a single service's, through a
 * ConfigProvider that maps the names; a refusal names the variable as set.
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { ConfigError, optional, read, refuse } from "./Read.js"

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
]

const FAMILY = new Set(PER_SERVICE.map((suffix) => `SVC_${suffix}`))
// Longest first, so that SVC_API_KEY_FILE is not read as SVC_API_KEY followed by _FILE.
const NAMED = new RegExp(`\\bSVC_(${[...PER_SERVICE].sort((a, b) => b.length - a.length).join("|")})\\b`, "g")

const NAME = /^[a-z0-9][a-z0-9-]*$/

/**
 * The server-wide variables that have the form of a service's own: a service
 * named "wait" would read SVC_WAIT_TIMEOUT_MS, the time-out of following an
 * operation, as its own time-out, and one named "mcp-public" SVC_MCP_PUBLIC_URL,
 * sign-in's public URL, as its own URL. Such names are refused. (A test holds
 * this list to every variable the server reads.)
 */
export const SERVER_WIDE: ReadonlySet<string> = new Set(["SVC_WAIT_TIMEOUT_MS", "SVC_MCP_PUBLIC_URL"])

/** The server-wide variable a service `name` would read as one of its own, if any. */
const serverWideOf = (name: string): string | undefined =>
  PER_SERVICE.map((suffix) => variable(name, `SVC_${suffix}`)).find((own) => SERVER_WIDE.has(own))

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
 * served): messages are made with it, naming the service's own variables.
 * Provided by `reading` while a service's layers are built, and in each
 * service's context (Services/Registry.ts); by default a single service's.
 */
export class Naming extends Context.Reference<Naming>()("svc-mcp/Naming", {
  defaultValue: (): NamingShape => single,
}) {}

/** A text about a single service's variables, about service `name`'s instead. */
export const renameIn = (name: string, text: string): string => text.replace(NAMED, (single) => variable(name, single))

const renamed = (name: string, error: ConfigError): ConfigError =>
  new ConfigError({
    variable: renameIn(name, error.variable),
    problem: renameIn(name, error.problem),
    hint: renameIn(name, error.hint),
  })

/**
 * Runs `self`, which reads a single service's settings, for service `name`:
 * its variables are read under their per-service names, and refusals name those.
 */
export const reading =
  (name: string) =>
  <A, R>(self: Effect.Effect<A, ConfigError, R>): Effect.Effect<A, ConfigError, R> =>
    Effect.configProviderWith((provider) =>
      Effect.withConfigProvider(
        self,
        ConfigProvider.mapInputPath(provider, (path) => variable(name, path)),
      ),
    ).pipe(
      Effect.provideService(Naming, naming(name)),
      Effect.mapError((error) => renamed(name, error)),
    )

const names = Config.mapOrFail(optional("SVC_SERVICES"), (value) => {
  if (Option.isNone(value)) return Either.right(Option.none<ReadonlyArray<string>>())
  const listed = value.value.split(",").map((name) => name.trim())
  const bad = listed.find((name) => !NAME.test(name))
  if (bad !== undefined) {
    return Either.left(
      refuse(
        "SVC_SERVICES",
        `has the name ${JSON.stringify(bad)}`,
        "give comma-separated names of lowercase letters, digits and -, e.g. SVC_SERVICES=prod,staging",
      ),
    )
  }
  const twice = listed.find((name, at) => listed.indexOf(name) !== at)
  if (twice !== undefined) {
    return Either.left(refuse("SVC_SERVICES", `names ${JSON.stringify(twice)} twice`, "name each service once"))
  }
  const clash = listed.find(
    (name, at) => listed.findIndex((other) => variable(other, "SVC_URL") === variable(name, "SVC_URL")) !== at,
  )
  if (clash !== undefined) {
    return Either.left(
      refuse(
        "SVC_SERVICES",
        `names ${JSON.stringify(clash)}, whose variables another name shares`,
        "rename one of them",
      ),
    )
  }
  const taken = listed.find((name) => serverWideOf(name) !== undefined)
  if (taken !== undefined) {
    return Either.left(
      refuse(
        "SVC_SERVICES",
        `names ${JSON.stringify(taken)}, whose ${serverWideOf(taken)} is a server-wide setting`,
        "rename the service",
      ),
    )
  }
  return Either.right(Option.some<ReadonlyArray<string>>(listed))
})

/**
 * SVC_SERVICES, or None for the single unnamed service. With names, a single
 * service's variable (SVC_URL...) is refused, as it would be silently ignored.
 */
export const load: Effect.Effect<Option.Option<ReadonlyArray<string>>, ConfigError> = Effect.gen(function* () {
  const listed = yield* read(names)
  if (Option.isNone(listed)) return listed
  const first = listed.value[0] as string
  for (const single of FAMILY) {
    const set = yield* read(optional(single))
    if (Option.isSome(set)) {
      return yield* new ConfigError({
        variable: single,
        problem: "is set, and so is SVC_SERVICES, which gives each service its own",
        hint: `rename it for the service it is for, e.g. ${variable(first, single)}, or unset SVC_SERVICES`,
      })
    }
  }
  return listed
})
