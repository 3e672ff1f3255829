/**
 * A key of their own for each person signed in whose entry says `mint`: on
 * their first call, a service user named for them (Service.ts), exactly the
 * permissions of their grant, and an API key with an expiry, made with the
 * server's own (admin) credentials; that call and every later one are sent
 * with the key (SignIn/Auth.ts asks here for it).
 *
 * One person, one live key. Within a process, one minting at a time per
 * person; across replicas, a lock in the shared store, and the key kept there
 * sealed with the state key (Store/Sealed.ts), never in clear. Without a
 * store the key lives in this process's memory; after a restart the person's
 * first call mints again and deletes the keys left at the service.
 *
 * A key is replaced once half its lifetime (SVC_MCP_MINT_LIFETIME) is past: a
 * new one is minted and used, and the old one deleted a little later, so that
 * calls already sent with it finish. A key the service refuses is minted again
 * once (SvcClient's one retry after `renew`); a person whose entry went or
 * changed has their keys deleted (`reconcile`, on SIGHUP), as `revoke` does.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as CallContext from "../Call/Context.js"
import type { StoreShape } from "../Store/Shape.js"
import type { SvcClientShape } from "../SvcClient.js"
import * as Locks from "./Locks.js"
import * as MintService from "./Service.js"
import { type Held, MintError, type MintShape } from "./Shape.js"

/** How long a process keeps waiting for another replica's minting, polling the store. */
const WAIT_MS = 20_000
const POLL_MS = 100
/** A lock outlives a minting that died with its replica by this much at most. */
const LOCK_MS = 30_000
/** The most people whose keys one process holds at once. */
const HELD_MAX = 10_000

export interface MintOptions {
  readonly lifetimeMs: number
  /** Where the service is: the store's records of two services never mix. */
  readonly scope: string
}

const wordsOf = (error: { readonly message: string }) => error.message

/** The record kept in the store, sealed. */
const recordOf = (held: Held) =>
  JSON.stringify({ ...held, secret: Redacted.value(held.secret) })

const heldOf = (text: string): Option.Option<Held> => {
  try {
    const value = JSON.parse(text) as Record<string, unknown>
    return typeof value.key === "string" && typeof value.secret === "string"
      ? Option.some({ ...(value as unknown as Held), secret: Redacted.make(value.secret) })
      : Option.none()
  } catch {
    return Option.none()
  }
}

export const make = (
  client: SvcClientShape,
  store: Option.Option<StoreShape>,
  options: MintOptions,
): Effect.Effect<MintShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const service = MintService.make(client)
    const memory = new Map<string, { readonly held: Held; readonly sealed?: string }>()
    const locks = Locks.make()
    const scope = yield* Effect.scope
    const graceMs = Math.min(60_000, Math.floor(options.lifetimeMs / 4))
    const fresh = (held: Held, description: string, now: number) =>
      held.description === description && now < held.created + options.lifetimeMs / 2 && now < held.expires

    const names = (person: string) => {
      const id = Option.match(store, { onNone: () => person, onSome: (s) => s.keyed(`${options.scope}\u0000${person}`) })
      return { record: `mint:${id}`, lock: `mint-lock:${id}` }
    }
    const remember = (person: string, held: Held, sealed?: string) => {
      if (memory.size >= HELD_MAX && !memory.has(person)) memory.clear()
      memory.set(person, sealed === undefined ? { held } : { held, sealed })
    }
    const fail = (person: string) => (error: { readonly message: string }) =>
      new MintError({ person, reason: wordsOf(error) })

    /** The key the store holds for the person, opened (this process's copy while the sealed text is the same). */
    const stored = (person: string): Effect.Effect<Option.Option<Held>> =>
      Option.match(store, {
        onNone: () => Effect.succeed(Option.fromNullable(memory.get(person)?.held)),
        onSome: (s) =>
          Effect.map(Effect.option(s.get(names(person).record)), (got) => {
            const sealed = Option.flatten(got)
            if (Option.isNone(sealed)) return Option.none()
            const mine = memory.get(person)
            if (mine?.sealed === sealed.value) return Option.some(mine.held)
            const opened = Option.flatMap(s.open(sealed.value, names(person).record), heldOf)
            if (Option.isSome(opened)) remember(person, opened.value, sealed.value)
            return opened
          }),
      })

    /** Deletes `keys` at the service later, in the background: calls sent with them may still be out. */
    const deleteLater = (keys: ReadonlyArray<string>) =>
      keys.length === 0
        ? Effect.void
        : Effect.forkIn(
            Effect.delay(
              Effect.forEach(keys, (key) => Effect.ignore(service.deleteKey(key)), { discard: true }),
              Duration.millis(graceMs),
            ),
            scope,
          )

    /** A new key for the person, replacing `previous` (deleted after the grace) and any other left at the service. */
    const mint = (person: string, grant: CallContext.Grant, previous: Option.Option<Held>) =>
      Effect.gen(function* () {
        const description = MintService.describe(person, grant)
        const user = yield* service.ensureUser(person, description)
        if (!user.enabled) {
          return yield* Effect.fail(
            new MintError({
              person,
              reason: `the service user ${user.username} is disabled (revoked); an admin enables it again at the service`,
            }),
          )
        }
        yield* service.grant(user.id, grant)
        const now = Date.now()
        const expires = now + options.lifetimeMs
        const made = yield* service.createKey(user.id, expires)
        if (made.key === "" || made.secret === "") {
          return yield* Effect.fail(new MintError({ person, reason: "the service answered no key and secret" }))
        }
        const held: Held = {
          key: made.key,
          secret: Redacted.make(made.secret),
          userId: user.id,
          username: user.username,
          created: now,
          expires,
          description,
        }
        yield* Option.match(store, {
          onNone: () => Effect.sync(() => remember(person, held)),
          onSome: (s) => {
            const sealed = s.seal(recordOf(held), names(person).record)
            remember(person, held, sealed)
            return Effect.ignore(s.set(names(person).record, sealed, expires - now))
          },
        })
        // One live key: the one it replaces goes after the grace, any other left behind (a restart's) now.
        const others = (yield* Effect.orElseSucceed(service.keys(user.id), () => [])).filter(
          (k) => k.key !== held.key,
        )
        const replaced = Option.map(previous, (p) => p.key)
        yield* Effect.forEach(
          others.filter((k) => !Option.contains(replaced, k.key)),
          (k) => Effect.ignore(service.deleteKey(k.key)),
          { discard: true },
        )
        yield* deleteLater(Option.toArray(replaced).filter((key) => others.some((k) => k.key === key)))
        yield* Effect.logInfo(`minted a key for ${JSON.stringify(person)} as ${JSON.stringify(user.username)}`)
        return held
      }).pipe(Effect.mapError((error) => (error instanceof MintError ? error : fail(person)(error))))

    /**
     * Across replicas: the one that takes the store's lock mints; the others wait for its record.
     * `usable` says whether a record found is the one wanted.
     */
    const shared = (person: string, grant: CallContext.Grant, usable: (held: Held) => boolean) =>
      Option.match(store, {
        onNone: () => mint(person, grant, Option.fromNullable(memory.get(person)?.held)),
        onSome: (s) =>
          Effect.gen(function* () {
            const { lock } = names(person)
            const deadline = Date.now() + WAIT_MS
            while (Date.now() < deadline) {
              const found = yield* stored(person)
              if (Option.isSome(found) && usable(found.value)) return found.value
              const taken = yield* Effect.mapError(s.setIfAbsent(lock, "minting", LOCK_MS), fail(person))
              if (taken) {
                return yield* Effect.ensuring(mint(person, grant, found), Effect.ignore(s.remove(lock)))
              }
              yield* Effect.sleep(Duration.millis(POLL_MS))
            }
            return yield* Effect.fail(
              new MintError({ person, reason: `another replica's minting did not end within ${WAIT_MS / 1000} s` }),
            )
          }),
      })

    const credential = (person: string, grant: CallContext.Grant) =>
      Effect.gen(function* () {
        const description = MintService.describe(person, grant)
        const now = Date.now()
        const held = yield* stored(person)
        if (Option.isSome(held) && fresh(held.value, description, now)) return held.value
        return yield* locks.one(
          person,
          Effect.suspend(() => shared(person, grant, (found) => fresh(found, description, Date.now()))),
        )
      })

    const refused = (person: string, grant: CallContext.Grant, stale: string) =>
      locks.one(
        person,
        Effect.gen(function* () {
          const description = MintService.describe(person, grant)
          const held = yield* stored(person)
          if (Option.isSome(held) && held.value.key !== stale && fresh(held.value, description, Date.now())) {
            return held.value
          }
          memory.delete(person)
          yield* Option.match(store, { onNone: () => Effect.void, onSome: (s) => Effect.ignore(s.remove(names(person).record)) })
          return yield* shared(person, grant, (found) => found.key !== stale && fresh(found, description, Date.now()))
        }),
      )

    const revoke = (person: string, disable = false) =>
      locks.one(
        person,
        Effect.gen(function* () {
          memory.delete(person)
          yield* Option.match(store, { onNone: () => Effect.void, onSome: (s) => Effect.ignore(s.remove(names(person).record)) })
          const user = (yield* service.users).find((u) => u.username === MintService.usernameOf(person))
          if (user === undefined) return 0
          if (disable) yield* service.disable(user.id)
          const keys = yield* service.keys(user.id)
          yield* Effect.forEach(keys, (k) => service.deleteKey(k.key), { discard: true })
          yield* Effect.logInfo(`revoked ${keys.length} minted key(s) of ${JSON.stringify(person)}`)
          return keys.length
        }).pipe(Effect.mapError(fail(person))),
      )

    const holders = Effect.gen(function* () {
      const users = yield* service.users
      const listed = yield* Effect.forEach(
        users,
        (user) =>
          Effect.map(service.keys(user.id), (keys) => ({
            person: user.username.slice(MintService.USER_PREFIX.length),
            username: user.username,
            created: keys.map((k) => k.created).sort((a, b) => b - a),
            description: user.description,
          })),
        { concurrency: 4 },
      )
      return listed.filter((holder) => holder.created.length > 0)
    }).pipe(Effect.mapError(fail("*")))

    const reconcile = (grantOf: (person: string) => CallContext.Grant | undefined) =>
      Effect.gen(function* () {
        const gone = (yield* holders).filter((holder) => {
          const grant = grantOf(holder.person)
          return grant === undefined || MintService.describe(holder.person, grant) !== holder.description
        })
        // Held here but not listed (the service user's description was changed by hand): forgotten too.
        for (const person of [...memory.keys()]) {
          const grant = grantOf(person)
          const held = memory.get(person)?.held
          if (held !== undefined && (grant === undefined || MintService.describe(person, grant) !== held.description)) {
            memory.delete(person)
          }
        }
        yield* Effect.forEach(gone, (holder) => revoke(holder.person), { discard: true })
        return gone.map((holder) => holder.person)
      })

    return {
      credential,
      refused,
      revoke,
      holders,
      reconcile,
      usernameOf: MintService.usernameOf,
      held: (person) => Option.fromNullable(memory.get(person)?.held),
    } satisfies MintShape
  })
