/**
 * A key of their own for each person signed in whose entry says `mint`: on
 * their first call, a service user named for them (Service.ts), exactly the
 * permissions of their grant, and an API key with an expiry, made with the
 * server's own (admin) credentials; that call and every later one are sent
 * with the key (SignIn/SignedInAuth.ts asks here for it).
 *
 * One person, one live key. Within a process, one minting at a time per
 * person; across replicas, a lock in the shared store, and the key kept there
 * sealed with the state key (Store/Sealed.ts), never in clear. Without a
 * store the key lives in this process's memory; after a restart the person's
 * first call mints again and deletes the keys left at the service. While the
 * store does not answer, nothing is minted and the keys already opened here
 * are used while they live (Outage.ts).
 *
 * A key is replaced once half its lifetime (SVC_MCP_MINT_LIFETIME) is past: a
 * new one is minted and used, and the old one deleted a little later, so that
 * calls already sent with it finish. A key the service refuses is minted again
 * once (SvcClient's one retry after `renew`); a person whose entry went or
 * changed has their keys deleted (`reconcile`, on SIGHUP), as `revoke` does,
 * and one whose entry went has their service user disabled.
 *
 * A grant is checked against the identities in force (the last `reconcile`'s)
 * before the service user is touched and again just before the key is made, so
 * a reload while a call waits mints nothing for a person it removed. People
 * new to the service (no service user yet) are minted for at most
 * SVC_MCP_MINT_NEW_PER_MINUTE a minute, per process.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as CallContext from "../Call/Context.js"
import type { StoreShape } from "../Store/Shape.js"
import { type SvcClientShape, WHOLE_TIMES } from "../SvcClient.js"
import { holdersOf } from "./Holders.js"
import * as Kept from "./Kept.js"
import * as Locks from "./Locks.js"
import * as Newcomers from "./Newcomers.js"
import * as Outage from "./Outage.js"
import * as MintService from "./Service.js"
import { type Held, type Holders, MintError, type MintShape, type Revoked } from "./Shape.js"

/** How long a process keeps waiting for another replica's minting, polling the store. */
const WAIT_MS = 20_000
const POLL_MS = 100
/** A lock outlives a minting that died with its replica by this much at most. */
const LOCK_MS = 30_000

export interface MintOptions {
  readonly lifetimeMs: number
  /** Where the service is: the store's records of two services never mix. */
  readonly scope: string
  /** The most people new to the service minted for in a minute (SVC_MCP_MINT_NEW_PER_MINUTE). */
  readonly newPerMinute?: number
}

/** The bound on new people a minute when none is given. */
const NEW_PER_MINUTE = 30

type GrantOf = (person: string) => CallContext.Grant | undefined

/** Minting's state (the keys held, the per-person locks) and its steps, one method each. */
class Minter {
  readonly service: MintService.MintService
  /** The keys held: in memory, and sealed in the store. */
  readonly kept: Kept.KeptKeys
  readonly locks = Locks.make()
  readonly graceMs: number
  /** Refuses a person new to the service past the minute's bound. */
  readonly newcomer: ReturnType<typeof Newcomers.make>
  /** The identities in force since the last reload; none before any (the grant admitted is then current). */
  current: GrantOf | undefined = undefined

  constructor(
    client: SvcClientShape,
    readonly store: Option.Option<StoreShape>,
    readonly options: MintOptions,
    readonly scope: Scope.Scope,
  ) {
    this.kept = new Kept.KeptKeys(store, options.scope)
    this.service = MintService.make(client)
    this.graceMs = Math.min(60_000, Math.floor(options.lifetimeMs / 4))
    this.newcomer = Newcomers.make(options.newPerMinute ?? NEW_PER_MINUTE)
  }

  fresh(held: Held, description: string, now: number): boolean {
    return held.description === description && now < held.created + this.options.lifetimeMs / 2 && now < held.expires
  }

  /** One live key: the one it replaces goes after the grace (calls sent with it may be out), any other left behind (a restart's) now. */
  clearOthers(held: Held, previous: Option.Option<Held>): Effect.Effect<void> {
    const { service } = this
    return Effect.gen(this, function* () {
      const others = (yield* Effect.orElseSucceed(service.keys(held.userId), () => [])).filter(
        (k) => k.key !== held.key,
      )
      const replaced = Option.map(previous, (p) => p.key)
      yield* Effect.forEach(
        others.filter((k) => !Option.contains(replaced, k.key)),
        (k) => Effect.ignore(service.deleteKey(k.key)),
        { discard: true },
      )
      const later = Option.toArray(replaced).filter((key) => others.some((k) => k.key === key))
      if (later.length > 0) {
        yield* Effect.forkIn(
          Effect.delay(
            Effect.forEach(later, (key) => Effect.ignore(service.deleteKey(key)), { discard: true }),
            Duration.millis(this.graceMs),
          ),
          this.scope,
        )
      }
    })
  }

  /** Whether `grant` is still the person's, as the identities in force say: else they get no key. */
  entitled(person: string, grant: CallContext.Grant): Effect.Effect<void, MintError> {
    return Effect.suspend(() => {
      if (this.current === undefined) return Effect.void
      const now = this.current(person)
      if (now !== undefined && MintService.describe(person, now) === MintService.describe(person, grant)) {
        return Effect.void
      }
      return Effect.fail(
        now === undefined
          ? new MintError({ person, reason: "their entry in SVC_MCP_IDENTITIES was removed", refused: true })
          : new MintError({ person, reason: "their entry in SVC_MCP_IDENTITIES changed while the call waited" }),
      )
    })
  }

  /** The person's service user, enabled, with exactly the grant's permissions. */
  user(person: string, grant: CallContext.Grant, description: string) {
    const { service } = this
    return Effect.gen(this, function* () {
      const user = yield* service.ensureUser(person, description, this.newcomer(person))
      if (!user.enabled) {
        return yield* Effect.fail(
          new MintError({
            person,
            reason: `the service user ${user.username} is disabled (revoked); an admin enables it again at the service`,
            refused: true,
          }),
        )
      }
      yield* service.grant(user.id, grant)
      return user
    })
  }

  /** A new key for the person, replacing `previous`. */
  mint(person: string, grant: CallContext.Grant, previous: Option.Option<Held>): Effect.Effect<Held, MintError> {
    const { service } = this
    return Effect.gen(this, function* () {
      yield* this.entitled(person, grant)
      const description = MintService.describe(person, grant)
      const user = yield* this.user(person, grant, description)
      // Again just before the key is made: the identities may have been read again meanwhile.
      yield* this.entitled(person, grant)
      const created = Date.now()
      const expires = created + this.options.lifetimeMs
      const made = yield* service.createKey(user.id, expires)
      if (made.key === "" || made.secret === "") {
        return yield* Effect.fail(new MintError({ person, reason: "the service answered no key and secret" }))
      }
      const held: Held = {
        key: made.key,
        secret: Redacted.make(made.secret),
        userId: user.id,
        username: user.username,
        created,
        expires,
        description,
      }
      yield* this.kept.keep(person, held)
      // A reload while the key was made: it is deleted now, not at the next reload.
      const still = yield* Effect.either(this.entitled(person, grant))
      if (Either.isLeft(still)) {
        yield* this.kept.forget(person)
        yield* Effect.ignore(service.deleteKey(made.key))
        return yield* Effect.fail(still.left)
      }
      yield* this.clearOthers(held, previous)
      yield* Effect.logInfo(`minted a key for ${JSON.stringify(person)} as ${JSON.stringify(user.username)}`)
      return held
    }).pipe(Effect.mapError((error) => (error instanceof MintError ? error : failure(person)(error))))
  }

  /**
   * Across replicas: the one that takes the store's lock mints; the others wait for its record.
   * `usable` says whether a record found is the one wanted.
   */
  shared(person: string, grant: CallContext.Grant, usable: (held: Held) => boolean): Effect.Effect<Held, MintError> {
    if (Option.isNone(this.store))
      return this.mint(person, grant, Option.fromNullable(this.kept.memory.get(person)?.held))
    const s = this.store.value
    return Effect.gen(this, function* () {
      const { lock } = this.kept.names(person)
      const deadline = Date.now() + WAIT_MS
      while (Date.now() < deadline) {
        const found = yield* Effect.mapError(this.kept.stored(person), Outage.refusal(person, s.where))
        if (Option.isSome(found) && usable(found.value)) return found.value
        const taken = yield* Effect.mapError(s.setIfAbsent(lock, "minting", LOCK_MS), Outage.refusal(person, s.where))
        if (taken) return yield* Effect.ensuring(this.mint(person, grant, found), Effect.ignore(s.remove(lock)))
        yield* Effect.sleep(Duration.millis(POLL_MS))
      }
      return yield* Effect.fail(
        new MintError({ person, reason: `another replica's minting did not end within ${WAIT_MS / 1000} s` }),
      )
    })
  }

  credential(person: string, grant: CallContext.Grant): Effect.Effect<Held, MintError> {
    return Effect.gen(this, function* () {
      const description = MintService.describe(person, grant)
      const stored = yield* Effect.either(this.kept.stored(person))
      // The store does not answer: the key this process holds, while it lives; no minting.
      if (Either.isLeft(stored)) {
        return yield* Outage.held(this.kept.memory.get(person)?.held, person, description, this.kept.where, stored.left)
      }
      const held = stored.right
      if (Option.isSome(held) && this.fresh(held.value, description, Date.now())) return held.value
      return yield* this.locks.one(
        person,
        Effect.suspend(() => this.shared(person, grant, (found) => this.fresh(found, description, Date.now()))),
      )
    })
  }

  refused(person: string, grant: CallContext.Grant, stale: string): Effect.Effect<Held, MintError> {
    const description = MintService.describe(person, grant)
    const usable = (held: Held) => held.key !== stale && this.fresh(held, description, Date.now())
    return this.locks.one(
      person,
      Effect.gen(this, function* () {
        const held = yield* Effect.mapError(this.kept.stored(person), Outage.refusal(person, this.kept.where))
        if (Option.isSome(held) && usable(held.value)) return held.value
        yield* this.kept.forget(person)
        return yield* this.shared(person, grant, usable)
      }),
    )
  }

  revoke(person: string, disable = false): Effect.Effect<Revoked, MintError> {
    const { service } = this
    const username = MintService.usernameOf(person)
    return this.locks.one(
      person,
      Effect.gen(this, function* () {
        yield* this.kept.forget(person)
        const found = yield* service.find(username)
        if (Option.isNone(found)) return { username, found: false, keys: 0, disabled: false }
        const user = found.value
        if (disable && user.enabled) yield* service.disable(user.id)
        const keys = yield* service.keys(user.id)
        yield* Effect.forEach(keys, (k) => service.deleteKey(k.key), { discard: true })
        yield* Effect.logInfo(`revoked ${keys.length} minted key(s) of ${JSON.stringify(person)}`)
        return { username, found: true, keys: keys.length, disabled: disable || !user.enabled }
      }).pipe(Effect.mapError(failure(person))),
    )
  }

  get holders(): Effect.Effect<Holders, MintError> {
    return Effect.mapError(holdersOf(this.service), failure("*"))
  }

  reconcile(
    grantOf: GrantOf,
    named: ReadonlyArray<string> = [],
  ): Effect.Effect<ReadonlyArray<Revoked & { readonly person: string }>, MintError> {
    this.current = grantOf
    const changed = (person: string, description: string) => {
      const grant = grantOf(person)
      return grant === undefined || MintService.describe(person, grant) !== description
    }
    return Effect.gen(this, function* () {
      // Held here but not listed (the service user's description changed by hand): forgotten too.
      for (const [person, { held }] of [...this.kept.memory.entries()]) {
        if (changed(person, held.description)) this.kept.memory.delete(person)
      }
      // Only the users whose grant went or changed are asked about: the list's description says which.
      const listed = yield* Effect.mapError(this.service.users, failure("*"))
      const gone = listed.users
        .map((user) => ({ ...user, person: user.username.slice(MintService.USER_PREFIX.length) }))
        .filter((user) => user.enabled && changed(user.person, user.description))
        .map((user) => user.person)
      // Those whose own entry went are looked up by name, whether the service's list showed them or not.
      const people = [...new Set([...gone, ...named.filter((person) => grantOf(person) === undefined)])]
      const revoked = yield* Effect.forEach(people, (person) =>
        Effect.map(this.revoke(person, grantOf(person) === undefined), (r) =>
          r.found && (r.keys > 0 || r.disabled) ? [{ ...r, person }] : [],
        ),
      )
      if (listed.cut) {
        yield* Effect.logWarning(
          `the service's list of users could not be read whole (past ${WHOLE_TIMES} times SVC_MAX_ANSWER_BYTES): service users past the cap were not checked; those whose own entry went were, by name`,
        )
      }
      return revoked.flat()
    })
  }
}

const failure = (person: string) => (error: { readonly message: string }) =>
  new MintError({ person, reason: error.message })

export const make = (
  client: SvcClientShape,
  store: Option.Option<StoreShape>,
  options: MintOptions,
): Effect.Effect<MintShape, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    const minter = new Minter(client, store, options, scope)
    return {
      credential: (person, grant) => minter.credential(person, grant),
      refused: (person, grant, stale) => minter.refused(person, grant, stale),
      revoke: (person, disable) => minter.revoke(person, disable),
      holders: Effect.suspend(() => minter.holders),
      reconcile: (grantOf, named) => minter.reconcile(grantOf, named),
      usernameOf: MintService.usernameOf,
      held: (person) => Option.fromNullable(minter.kept.memory.get(person)?.held),
    } satisfies MintShape
  })
