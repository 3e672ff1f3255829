/**
 * Params checked against the service's published request definitions
 * (spec/service-api.schema.json) before anything is sent: the service itself
 * ignores a field it does not know, so a misspelt field would silently do
 * nothing there. On unless SVC_CHECK_PARAMS=off (Settings/ParamsCheck.ts);
 * against the shipped definitions unless SVC_DEFINITIONS names others. Among
 * several services each has its own check (`layerFor`), against the
 * definitions of its own version.
 *
 * The shipped file is read, and ajv imported, by the first call that needs
 * them, and each endpoint's check is compiled on its first use
 * (ParamsValidation.ts), so that start-up pays for none of it. A file an
 * operator gives is read at start, where its shape is checked; ajv still waits
 * for the first call.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { compare, SPEC_VERSION } from "../../Service/Versions.js"
import * as Settings from "../../Settings/ParamsCheck.js"
import { ConfigError } from "../../Settings/Read.js"
import { type Document, inspect, type Json, locate, locateAll, searched, versionOf } from "./ParamsDefinitions.js"
import type * as Validation from "./ParamsValidation.js"
import type { Checked, Reader } from "./ParamsValidation.js"

export { locate } from "./ParamsDefinitions.js"
export type { Checked } from "./ParamsValidation.js"

/** What `schema: true` shows of an endpoint. */
export interface Described {
  readonly accepted: string
  readonly checked: boolean
  readonly answer?: string | undefined
  /** The shapes `accepted` and `answer` name in place of spelling them out, each answered by `shape`. */
  readonly named: ReadonlyArray<string>
  /** A named shape, compact, and the shapes it names in turn; undefined where the definitions have none of that name. */
  readonly shape: (name: string) => { readonly type: string; readonly named: ReadonlyArray<string> } | undefined
}

export interface ParamsCheckShape {
  /** Which definitions are in force, in a phrase for the startup line and `check`. */
  readonly inForce: string
  /** The service version of the definitions params are checked against; absent when they are sent unchecked. */
  readonly version?: string | undefined
  readonly check: (endpoint: string, body: Json) => Effect.Effect<Checked>
  /** The endpoint's params, compact, or undefined when the definitions are not installed. */
  readonly describe: (endpoint: string) => Effect.Effect<Described | undefined>
}

/**
 * The check against definitions read by `read` on the first call that needs
 * them: ajv and the compiled checks are a chunk of their own, imported with
 * that first reading; once read, every call has them at once. Each check holds
 * its own, so that services of different versions keep theirs apart.
 */
const checking = (
  read: (validation: typeof Validation) => Reader,
  version: string,
  inForce: string,
): ParamsCheckShape => {
  let loading: Promise<Reader> | undefined
  let loaded: Reader | undefined
  const definitions = Effect.suspend(() =>
    loaded !== undefined
      ? Effect.succeed(loaded)
      : Effect.promise(() => (loading ??= import("./ParamsValidation.js").then(read))).pipe(
          Effect.tap((read) => Effect.sync(() => (loaded = read))),
        ),
  )
  return {
    inForce,
    version,
    // Once read, checked at once: the common call takes no step to reach the definitions.
    check: (endpoint, body) =>
      loaded !== undefined
        ? Effect.succeed(loaded.check(endpoint, body))
        : Effect.map(definitions, (d) => d.check(endpoint, body)),
    describe: (endpoint) =>
      Effect.map(definitions, (d) => {
        const accepted = d.accepted(endpoint)
        const answer = d.answer(endpoint)
        return {
          accepted,
          checked: d.requestOf(endpoint) !== undefined,
          answer,
          named: d.named(endpoint, `${accepted} ${answer ?? ""}`),
          shape: (name: string) => {
            const type = d.shape(endpoint, name)
            return type === undefined ? undefined : { type, named: d.named(endpoint, type).filter((n) => n !== name) }
          },
        }
      }),
  }
}

/**
 * The check against the definitions file at `path`, read on the first call that needs it;
 * an endpoint it does not list is checked against the file at `rest`, when given, read on first need.
 */
export const fromFile = (path: string, version: string, rest?: string): ParamsCheckShape =>
  checking(
    (validation) => {
      const first = validation.RequestDefinitions.read(path)
      return rest === undefined ? first : validation.beyond(first, () => validation.RequestDefinitions.read(rest))
    },
    version,
    // The shipped definitions are the newest the service publishes (its client package), older than the API
    // the tools speak: said as such, so that a 2.3.3 service is not taken for one of the definitions' version.
    `params checked against definitions ${version}, the newest the service publishes (the tools speak API ${SPEC_VERSION})`,
  )

/** The check against definitions read already (a file given at start, inspected whole there). */
export const fromDocument = (document: Document, inForce: string): ParamsCheckShape =>
  checking((validation) => new validation.RequestDefinitions(document), document.serviceVersion, inForce)

const missing = (variable: string) =>
  new ConfigError({
    variable,
    problem: `is on, but the service's definitions are not installed (${searched()})`,
    hint: `reinstall svc-mcp, or set ${variable}=off to send params unchecked`,
  })

const findShipped = (variable = "SVC_CHECK_PARAMS"): Either.Either<ParamsCheckShape, ConfigError> => {
  const path = locate()
  const version = path === undefined ? undefined : versionOf(path)
  return path === undefined || version === undefined
    ? Either.left(missing(variable))
    : Either.right(fromFile(path, version, locateAll()))
}

/** The check with the definitions shipped beside this module. */
export const shipped: Effect.Effect<ParamsCheckShape, ConfigError> = Effect.suspend(() => findShipped())

/**
 * Params sent as given (`decidedBy`=off); an assistant may still ask what the
 * definitions say: those `described` finds (the shipped ones by default), on the first question.
 */
export const makeOff = (
  decidedBy = "SVC_CHECK_PARAMS",
  described: () => Either.Either<ParamsCheckShape, ConfigError> = findShipped,
): ParamsCheckShape => {
  let found: Either.Either<ParamsCheckShape, ConfigError> | undefined
  return {
    inForce: `params sent unchecked (${decidedBy}=off)`,
    check: (_endpoint, body) => Effect.succeed({ _tag: "Unchecked", body }),
    describe: (endpoint) =>
      Effect.suspend(() => {
        found ??= described()
        return Either.isRight(found) ? found.right.describe(endpoint) : Effect.succeed(undefined)
      }),
  }
}

/**
 * The check as `settings` say. A definitions file given is inspected whole
 * here, at start, even when the check is off (it still answers `schema: true`):
 * a file that cannot serve stops the start by the name of its variable.
 */
export const fromSettings = (settings: Settings.ParamsSettings): Effect.Effect<ParamsCheckShape, ConfigError> =>
  Effect.suspend(() => {
    const given = Option.map(settings.definitions, ({ path, variable }) =>
      Either.match(inspect(path), {
        onLeft: (unfit) => Either.left(new ConfigError({ variable, ...unfit })),
        onRight: (document) =>
          Either.right(
            fromDocument(
              document,
              `params checked against the definitions ${document.serviceVersion} in ${path} (${variable})`,
            ),
          ),
      }),
    )
    if (Option.isSome(given) && Either.isLeft(given.value)) return given.value
    const definitions = () => Option.getOrElse(given, () => findShipped(settings.checkVariable))
    if (!settings.on) {
      const decidedBy = Option.getOrElse(settings.decidedBy, () => settings.checkVariable)
      return Effect.succeed(makeOff(decidedBy, definitions))
    }
    return definitions()
  })

/** The check in force: the tools' bundle provides one (Bundle/Tools.ts), each service its own (Registry/Registry.ts). */
export class ParamsCheck extends Context.Tag("svc-mcp/ParamsCheck")<ParamsCheck, ParamsCheckShape>() {}

/**
 * The shipped definitions, checked as the server does by default, loaded on
 * first use (a defect if they are not installed): what a program embedding the
 * tools gets when it names no check.
 */
export const lazyShipped = (): ParamsCheckShape => {
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
}

/** As SVC_CHECK_PARAMS and SVC_DEFINITIONS say: the shipped definitions (the default), a file of the operator's, or off. */
export const load: Effect.Effect<ParamsCheckShape, ConfigError> = Effect.flatMap(Settings.load, fromSettings)

/** Service `name`'s check (SVC_SERVICES): as its SVC_<N>_CHECK_PARAMS and SVC_<N>_DEFINITIONS say, else the server's. */
export const loadFor = (name: string): Effect.Effect<ParamsCheckShape, ConfigError> =>
  Effect.flatMap(Settings.loadFor(name), fromSettings)

/** Params checked against the shipped definitions; refused at start if they are not installed. */
export const layer: Layer.Layer<ParamsCheck, ConfigError> = Layer.effect(ParamsCheck, shipped)

/** The shipped definitions, read when the first call is checked (the tools' bundle's default). */
export const layerLazy: Layer.Layer<ParamsCheck> = Layer.sync(ParamsCheck, lazyShipped)

/** Params sent unchecked. */
export const layerOff: Layer.Layer<ParamsCheck> = Layer.sync(ParamsCheck, () => makeOff())

/** The check as SVC_CHECK_PARAMS and SVC_DEFINITIONS say (Settings/ParamsCheck.ts). */
export const layerConfig: Layer.Layer<ParamsCheck, ConfigError> = Layer.effect(ParamsCheck, load)

/** Service `name`'s own check, held in its context (Registry/Registry.ts), apart from every other service's. */
export const layerFor = (name: string): Layer.Layer<ParamsCheck, ConfigError> =>
  Layer.effect(ParamsCheck, loadFor(name))

/** The major.minor of a version: a newer patch of the service keeps its request shapes. */
const minorOf = (version: string) => version.trim().replace(/^v/i, "").split(".").slice(0, 2).join(".")

export interface Step {
  readonly name: string
  readonly status: "ok" | "fail"
  readonly detail: string
  readonly hint?: string
}

/**
 * For `svc-mcp check`: which definitions are in force, as `settings` say;
 * `serviceVersion`, when known, is compared with theirs, as a newer service may
 * take fields they lack.
 */
export const stepFor = (
  settings: Effect.Effect<Settings.ParamsSettings, ConfigError>,
  serviceVersion?: string,
): Effect.Effect<Step> =>
  Effect.match(
    Effect.flatMap(settings, (read) => Effect.map(fromSettings(read), (check) => [read, check] as const)),
    {
      onSuccess: ([read, check]): Step => {
        // The step is named params already: "[ok  ] params   checked against ...".
        const detail = check.inForce.replace(/^params /, "")
        const { version } = check
        const newer =
          serviceVersion !== undefined &&
          version !== undefined &&
          compare(`${minorOf(serviceVersion)}.0`, `${minorOf(version)}.0`) > 0
        return newer
          ? {
              name: "params",
              status: "ok",
              detail,
              hint: `the service (${serviceVersion}) is newer than these definitions: if it takes a field they lack, the call is refused; then give its definitions in ${read.definitionsVariable}, or set ${read.checkVariable}=off`,
            }
          : { name: "params", status: "ok", detail }
      },
      onFailure: (error): Step => ({
        name: "params",
        status: "fail",
        detail: `${error.variable} ${error.problem}`,
        hint: error.hint,
      }),
    },
  )

/** The single service's step: as SVC_CHECK_PARAMS and SVC_DEFINITIONS say. */
export const step = (serviceVersion?: string): Effect.Effect<Step> => stepFor(Settings.load, serviceVersion)
