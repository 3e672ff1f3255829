/**
 * Params checked against the service's published request definitions
 * (spec/service-api.schema.json) before anything is sent: the service itself
 * ignores a field it does not know, so a misspelt field would silently do
 * nothing there. On unless SVC_CHECK_PARAMS=off (Settings/ParamsCheck.ts).
 *
 * The file is read, and ajv imported, by the first call that needs them, and
 * each endpoint's check is compiled on its first use (ParamsValidation.ts), so
 * that start-up pays for none of it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { compare } from "../Service/Versions.js"
import * as Settings from "../Settings/ParamsCheck.js"
import { ConfigError } from "../Settings/Read.js"
import { type Json, locate, searched, versionOf } from "./ParamsDefinitions.js"
import type { Checked, RequestDefinitions } from "./ParamsValidation.js"

export { locate } from "./ParamsDefinitions.js"
export type { Checked } from "./ParamsValidation.js"

/** What `schema: true` shows of an endpoint. */
export interface Described {
  readonly accepted: string
  readonly checked: boolean
  readonly answer?: string | undefined
}

export interface ParamsCheckShape {
  /** Which definitions are in force, in a phrase for the startup line and `check`. */
  readonly inForce: string
  readonly check: (endpoint: string, body: Json) => Effect.Effect<Checked>
  /** The endpoint's params, compact, or undefined when the definitions are not installed. */
  readonly describe: (endpoint: string) => Effect.Effect<Described | undefined>
}

/** The check against the definitions file at `path`, read on the first call that needs it. */
export const fromFile = (path: string, version: string): ParamsCheckShape => {
  // ajv and the compiled checks are a chunk of their own, imported with the file's first reading;
  // once read, every call has them at once.
  let loading: Promise<RequestDefinitions> | undefined
  let loaded: RequestDefinitions | undefined
  const definitions = Effect.suspend(() =>
    loaded !== undefined
      ? Effect.succeed(loaded)
      : Effect.promise(
          () => (loading ??= import("./ParamsValidation.js").then((module) => module.RequestDefinitions.read(path))),
        ).pipe(Effect.tap((read) => Effect.sync(() => (loaded = read)))),
  )
  return {
    inForce: `params checked against the service's definitions ${version}`,
    check: (endpoint, body) => Effect.map(definitions, (d) => d.check(endpoint, body)),
    describe: (endpoint) =>
      Effect.map(definitions, (d) => ({
        accepted: d.accepted(endpoint),
        checked: d.requestOf(endpoint) !== undefined,
        answer: d.answer(endpoint),
      })),
  }
}

const missing = () =>
  new ConfigError({
    variable: "SVC_CHECK_PARAMS",
    problem: `is on, but the service's definitions are not installed (${searched()})`,
    hint: "reinstall svc-mcp, or set SVC_CHECK_PARAMS=off to send params unchecked",
  })

const findShipped = (): Either.Either<ParamsCheckShape, ConfigError> => {
  const path = locate()
  const version = path === undefined ? undefined : versionOf(path)
  return path === undefined || version === undefined ? Either.left(missing()) : Either.right(fromFile(path, version))
}

/** The check with the definitions shipped beside this module. */
export const shipped: Effect.Effect<ParamsCheckShape, ConfigError> = Effect.suspend(() => findShipped())

/** Params sent as given; an assistant may still ask what the shipped definitions say. */
export const makeOff = (): ParamsCheckShape => {
  let found: Either.Either<ParamsCheckShape, ConfigError> | undefined
  return {
    inForce: "params sent unchecked (SVC_CHECK_PARAMS=off)",
    check: (_endpoint, body) => Effect.succeed({ _tag: "Unchecked", body }),
    describe: (endpoint) =>
      Effect.suspend(() => {
        found ??= findShipped()
        return Either.isRight(found) ? found.right.describe(endpoint) : Effect.succeed(undefined)
      }),
  }
}

/**
 * The check in force. Without a layer (a program embedding the tools) it is
 * the shipped definitions, checked as the server does by default: loaded on
 * first use, a defect if they are not installed.
 */
export class ParamsCheck extends Context.Reference<ParamsCheck>()("svc-mcp/ParamsCheck", {
  defaultValue: (): ParamsCheckShape => {
    let made: ParamsCheckShape | undefined
    const get = () => {
      made ??= Either.getOrThrow(findShipped())
      return made
    }
    return {
      get inForce() {
        return get().inForce
      },
      check: (endpoint, body) => Effect.suspend(() => get().check(endpoint, body)),
      describe: (endpoint) => Effect.suspend(() => get().describe(endpoint)),
    }
  },
}) {}

/** The check in force: the provided one, else the shipped definitions. */
export const current: Effect.Effect<ParamsCheckShape> = ParamsCheck

/** As SVC_CHECK_PARAMS says: the shipped definitions (the default), or off. */
export const load: Effect.Effect<ParamsCheckShape, ConfigError> = Effect.flatMap(Settings.load, (on) =>
  on ? shipped : Effect.sync(makeOff),
)

/** Params checked against the shipped definitions; refused at start if they are not installed. */
export const layer: Layer.Layer<ParamsCheck, ConfigError> = Layer.effect(ParamsCheck, shipped)

/** Params sent unchecked. */
export const layerOff: Layer.Layer<ParamsCheck> = Layer.sync(ParamsCheck, makeOff)

/** The check as SVC_CHECK_PARAMS says (Settings/ParamsCheck.ts): `layer` when on, else `layerOff`. */
export const layerConfig: Layer.Layer<ParamsCheck, ConfigError> = Layer.effect(ParamsCheck, load)

/** The major.minor of a version: a newer patch of the service keeps its request shapes. */
const minorOf = (version: string) => version.trim().replace(/^v/i, "").split(".").slice(0, 2).join(".")

/**
 * For `svc-mcp check`: which definitions are in force; `serviceVersion`, when
 * known, is compared with them, as a newer service may take fields they lack.
 */
export const step = (
  serviceVersion?: string,
): Effect.Effect<{
  readonly name: string
  readonly status: "ok" | "fail"
  readonly detail: string
  readonly hint?: string
}> =>
  Effect.match(Effect.zip(load, Effect.sync(locate)), {
    onSuccess: ([check, path]) => {
      // The step is named params already: "[ok  ] params   checked against ...".
      const detail = check.inForce.replace(/^params /, "")
      const version = path === undefined ? undefined : versionOf(path)
      const newer =
        serviceVersion !== undefined &&
        version !== undefined &&
        !check.inForce.includes("SVC_CHECK_PARAMS=off") &&
        compare(`${minorOf(serviceVersion)}.0`, `${minorOf(version)}.0`) > 0
      return newer
        ? {
            name: "params",
            status: "ok" as const,
            detail,
            hint: `the service (${serviceVersion}) is newer than these definitions: if it takes a field they lack, the call is refused; then set SVC_CHECK_PARAMS=off`,
          }
        : { name: "params", status: "ok" as const, detail }
    },
    onFailure: (error) => ({
      name: "params",
      status: "fail" as const,
      detail: `${error.variable} ${error.problem}`,
      hint: error.hint,
    }),
  })
