/**
 * `svc-mcp check`: whether the configuration reaches the service and logs in, for one service or
 * each of several, with sign-in's provider and the settings no setting reads. Loaded when run.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Config from "../Config.js"
import * as GuardSettings from "../Settings/Guard.js"
import * as HttpSettings from "../Settings/Http.js"
import * as ParamsSettings from "../Settings/ParamsCheck.js"
import * as RegistrySettings from "../Settings/Registry.js"
import * as SignInSettings from "../Settings/SignIn.js"
import * as Guard from "../Untrusted/Guard.js"
import { checkingClient } from "./CommandClients.js"
import { exitWith } from "./Exit.js"

const loadCheck = Effect.promise(() => import("../Diagnosis/Check.js"))
const loadPeople = Effect.promise(() => import("./People.js"))
const loadUnknown = Effect.promise(() => import("./UnknownWarnings.js"))

export const check = Effect.gen(function* () {
  const Check = yield* loadCheck
  const report = yield* Check.run
  const signIn = yield* SignInSettings.load()
  // Whose window a change falls in, as these settings serve: over HTTP with a port (or sign-in), else stdio.
  const http = Option.isSome(signIn) || (yield* HttpSettings.portSet)
  const perRequest = (yield* Config.loadCredentialsMode) === "per-request"
  const guard = Guard.whoseWindow(yield* GuardSettings.load, { http, signIn: Option.isSome(signIn), perRequest })
  const settings = yield* Effect.flatMap(loadUnknown, (Unknown) => Unknown.checkLines)
  yield* Console.error([Check.formatSteps(report), Check.guardLine(guard, http), ...settings].join("\n"))
  // With sign-in configured: the identity provider's metadata and keys, as the server will fetch them.
  const signInOk = Option.isNone(signIn) ? true : yield* checkSignIn(signIn.value)
  yield* Console.error(Check.verdict(report.ok && signInOk))
  if (!report.ok || !signInOk) yield* exitWith(1)
}).pipe(Effect.provide(checkingClient(Config.layer)))

const checkSignIn = (settings: SignInSettings.SignInSettingsShape) =>
  Effect.gen(function* () {
    const SignInCheck = yield* Effect.promise(() => import("../Diagnosis/IdentityProvider.js"))
    const steps = yield* SignInCheck.run(settings)
    yield* Console.error(SignInCheck.format(steps))
    const minting = yield* Effect.flatMap(loadPeople, (People) => People.checkIf(settings))
    return minting && steps.every((step) => step.status !== "fail")
  })

/** `check` of several services: each with its own variables, each report headed by its name. */
export const checkEach = (names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const Check = yield* loadCheck
    let ok = true
    for (const name of names) {
      const report = yield* Check.runWith(ParamsSettings.loadFor(name)).pipe(
        Effect.provide(checkingClient(Config.layer)),
        RegistrySettings.reading(name),
      )
      yield* Console.error(Check.format(report))
      ok &&= report.ok
    }
    if (!ok) yield* exitWith(1)
  })
