/**
 * Several services behind one server: SVC_SERVICES names them, and each name N
 * is configured by the variables of a single service with N after `SVC_`
 * (SVC_PROD_URL, SVC_PROD_API_KEY, SVC_PROD_MODE...). Each service's settings
 * are read by the same descriptions as a single service's, through a
 * ConfigProvider that maps the names, and with the service's Naming, by which
 * a refusal is made naming the variables as set (Settings/Naming.ts).
 */

import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Environment from "./Environment.js"
import { FAMILY, Naming, naming, PER_SERVICE, variable } from "./Naming.js"
import { ConfigError, optional, read, refuse } from "./Read.js"
import * as Setting from "./Setting.js"

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
 * Runs `self`, which reads a single service's settings, for service `name`:
 * its variables are read under their per-service names, and its Naming makes
 * refusals name those.
 */
export const reading =
  (name: string) =>
  <A, R>(self: Effect.Effect<A, ConfigError, R>): Effect.Effect<A, ConfigError, R> =>
    Effect.configProviderWith((provider) =>
      // The executable's environment is read by name through the Naming; any other provider is mapped.
      provider === Environment.provider
        ? self
        : Effect.withConfigProvider(
            self,
            ConfigProvider.mapInputPath(provider, (path) => variable(name, path)),
          ),
    ).pipe(Effect.provideService(Naming, naming(name)))

const names = Setting.mapOrFail(optional("SVC_SERVICES"), (value) => {
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
