/**
 * `svc-mcp people`: who holds a key minted for them at the service, each with
 * its age, and whose service user is disabled, as the service lists its
 * service users and their keys (so it is true of every replica, and after a
 * restart), on stdout; `people revoke <name>` finds the person's service user
 * by its name, deletes its keys and disables it, so that no key is minted for
 * them again until an admin enables it at the service; a name the service has
 * no user for, or one that held no key, exits 1 saying so. And the line of
 * `check` that says whether the server's credentials can mint.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SvcConfig } from "../Config.js"
import type { Holder, MintShape } from "../Mint/Shape.js"
import * as Audit from "../Operations/Audit.js"
import * as AuditPeople from "../Operations/AuditPeople.js"
import * as MintSettings from "../Settings/Mint.js"
import * as SignInSettings from "../Settings/SignIn.js"
import { Store } from "../Store/Store.js"
import { SvcClient, WHOLE_TIMES } from "../SvcClient.js"

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
  return yield* make(client, yield* Store, { ...settings, scope: config.url })
})

/** The command's listing, on stdout (so that it can be piped), a line each. */
const printed = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

/** One holder's line: their name, their service user, their newest key's age, or revoked. */
const lineOf = (holder: Holder, now: number): string => {
  const [newest] = holder.created
  const more = holder.created.length > 1 ? ` (${holder.created.length} keys)` : ""
  const key = newest === undefined ? "no key" : `key ${ageOf(now - newest)} old${more}`
  return `  ${JSON.stringify(holder.person)}  as ${JSON.stringify(holder.username)}  ${key}${holder.enabled ? "" : "  disabled (revoked)"}`
}

const NAMES =
  "NAME is the identity as SVC_MCP_IDENTITIES names it (its claim's value; see svc-mcp people --help), as svc-mcp people lists it"

/** Revokes one person; 0 when keys were deleted, 1 when there was no user or no key, or the service failed. */
const revokeOne = (mint: MintShape, person: string) =>
  Effect.gen(function* () {
    const revoked = yield* Effect.either(mint.revoke(person, true))
    if (revoked._tag === "Left") {
      yield* Console.error(`svc-mcp: ${revoked.left.message}`)
      return 1
    }
    const { username, found, keys, disabled } = revoked.right
    if (!found) {
      yield* Console.error(
        `svc-mcp: the service has no user ${JSON.stringify(username)}: no key was minted for ${JSON.stringify(person)}, and nothing was revoked. ${NAMES}`,
      )
      return 1
    }
    yield* AuditPeople.revocation({ person, username, keys, disabled, by: "svc-mcp people revoke" })
    const after = `the service user ${JSON.stringify(username)} is disabled, and no key is minted for them until an admin enables it at the service`
    if (keys === 0) {
      yield* Console.error(`svc-mcp: ${JSON.stringify(person)} held no minted key; ${after}`)
      return 1
    }
    yield* Console.error(`revoked ${keys} key(s) of ${JSON.stringify(person)}; ${after}`)
    return 0
  })

/** Lists the holders on stdout; 1 when the service cannot be asked, or its list was cut. */
const listAll = (mint: MintShape) =>
  Effect.gen(function* () {
    const listed = yield* Effect.either(mint.holders)
    if (listed._tag === "Left") {
      yield* Console.error(`svc-mcp: ${listed.left.message}`)
      return 1
    }
    const { holders, cut } = listed.right
    const now = Date.now()
    yield* printed(
      holders.length === 0
        ? "No one holds a minted key."
        : ["Minted keys:", ...holders.map((h) => lineOf(h, now))].join("\n"),
    )
    if (!cut) return 0
    yield* Console.error(
      `svc-mcp: the service's list of users could not be read whole (past ${WHOLE_TIMES} times SVC_MAX_ANSWER_BYTES) and was cut at the cap: the list above may miss people (revoke by name still finds them)`,
    )
    return 1
  })

/** Lists the holders, or revokes one; ends with `exit(1)` when the service cannot be asked. */
export const run = <E>(revoke: string | undefined, exit: (code: number) => Effect.Effect<never, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const mint = yield* minting
      const audit = yield* Audit.contextConfig
      return yield* Effect.provide(revoke === undefined ? listAll(mint) : revokeOne(mint, revoke), audit)
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
