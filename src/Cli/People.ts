/**
 * `svc-mcp people`: who holds a key minted for them at the service, each with
 * its age, as the service lists its service users and their keys (so it is
 * true of every replica, and after a restart); `people revoke <name>` deletes
 * a person's keys and disables their service user, so that no key is minted
 * for them again until an admin enables it at the service. And the line of
 * `check` that says whether the server's credentials can mint.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SvcConfig } from "../Config.js"
import * as MintSettings from "../Settings/Mint.js"
import * as SignInSettings from "../Settings/SignIn.js"
import { Store } from "../Store/Store.js"
import { SvcClient } from "../SvcClient.js"

/** An age in its two largest units: `3d 4h`, `12m 5s`. */
export const ageOf = (ms: number): string => {
  const s = Math.max(0, Math.floor(ms / 1000))
  const parts: ReadonlyArray<readonly [number, string]> = [
    [Math.floor(s / 86_400), "d"],
    [Math.floor(s / 3_600) % 24, "h"],
    [Math.floor(s / 60) % 60, "m"],
    [s % 60, "s"],
  ]
  const first = parts.findIndex(([n]) => n > 0)
  if (first < 0) return "0s"
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join(" ")
}

const minting = Effect.gen(function* () {
  const { make } = yield* Effect.promise(() => import("../Mint/Mint.js"))
  const client = yield* SvcClient
  const config = yield* SvcConfig
  const settings = yield* MintSettings.load
  return yield* make(client, yield* Store, { lifetimeMs: settings.lifetimeMs, scope: config.url })
})

/** Lists the holders, or revokes one; ends with `exit(1)` when the service cannot be asked. */
export const run = <E>(revoke: string | undefined, exit: (code: number) => Effect.Effect<never, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const mint = yield* minting
      if (revoke !== undefined) {
        const deleted = yield* Effect.either(mint.revoke(revoke, true))
        if (deleted._tag === "Left") {
          yield* Console.error(`svc-mcp: ${deleted.left.message}`)
          return 1
        }
        yield* Console.error(
          `revoked ${deleted.right} key(s) of ${JSON.stringify(revoke)}; the service user ${JSON.stringify(mint.usernameOf(revoke))} is disabled, and no key is minted for them until an admin enables it at the service`,
        )
        return 0
      }
      const holders = yield* Effect.either(mint.holders)
      if (holders._tag === "Left") {
        yield* Console.error(`svc-mcp: ${holders.left.message}`)
        return 1
      }
      if (holders.right.length === 0) {
        yield* Console.error("No one holds a minted key.")
        return 0
      }
      const now = Date.now()
      const lines = holders.right.map((holder) => {
        const [newest] = holder.created
        const more = holder.created.length > 1 ? ` (${holder.created.length} keys)` : ""
        return `  ${JSON.stringify(holder.person)}  as ${JSON.stringify(holder.username)}  key ${ageOf(now - (newest ?? now))} old${more}`
      })
      yield* Console.error(["Minted keys:", ...lines].join("\n"))
      return 0
    }),
  ).pipe(Effect.flatMap((code) => (code === 0 ? Effect.void : exit(code))))

/** `check`'s line on minting: whether the server's credentials are an admin's, which minting needs. */
export const checkLine = Effect.gen(function* () {
  const MintService = yield* Effect.promise(() => import("../Mint/Service.js"))
  const config = yield* SvcConfig
  const login = config.credentials._tag === "Login" ? config.credentials.username : undefined
  const fault = yield* MintService.make(yield* SvcClient).admin(login)
  return Option.match(Option.fromNullable(fault), {
    onNone: () => ({ ok: true, line: "  [ok  ] mint     the server's credentials are an admin's: keys can be minted" }),
    onSome: (reason) => ({ ok: false, line: `  [fail] mint     ${reason}` }),
  })
})

/** `check`'s line on minting, printed, where some entry asks for a minted key; whether it is ok. */
export const checkIf = (settings: SignInSettings.SignInSettingsShape) =>
  SignInSettings.mints(Option.some(settings))
    ? Effect.flatMap(checkLine, ({ ok, line }) => Effect.as(Console.error(line), ok))
    : Effect.succeed(true)

/** At start, in the background: a warning when the server's credentials cannot mint (the service may be down yet). */
export const warn = Effect.flatMap(checkLine, ({ ok, line }) =>
  ok ? Effect.void : Effect.logWarning(`minted keys: ${line.replace(/^\s*\[fail\] mint\s+/, "")}`),
)
