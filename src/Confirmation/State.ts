/**
 * The `requestState` of a confirmation question (MCP 2026-07-28, multi round-trip
 * requests): what the client echoes back is attacker-controlled, so the state is
 * sealed with HMAC-SHA256 under the server's key, binds the call it was issued
 * for (tool, selector, a digest of the exact arguments, the principal, the
 * service among several) and a short expiry, and is honoured once: per process,
 * or across replicas when they share a store (src/Store/). There the question's
 * nonce is recorded when it is asked and turned from asked to sending by the
 * answer in one command, so that exactly one of concurrent answers wins, and a store that lost its data honours
 * nothing older; an answer that cannot be checked there is not honoured (fail
 * closed). Its payload names no argument: the client learns nothing from it that
 * it did not send.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { TeamSettings } from "../Settings/Team.js"
import { Store, type StoreError, type StoreShape } from "../Store/Store.js"
import { digest } from "./Canonical.js"

/** How long a question's answer may take, unless SVC_MCP_QUESTION_TIMEOUT says otherwise (TeamSettings). */
export const TTL_MS = 5 * 60 * 1000

/** The principal when the server calls with its own credentials. */
export const SERVER_PRINCIPAL = "server"

/** What a state is bound to: the exact call the question was about, and who was asked. */
export interface Binding {
  readonly tool: string
  readonly selector: string
  readonly args: unknown
  /** The caller's key id in per-request mode, else SERVER_PRINCIPAL. */
  readonly principal: string
  /** Which of several services (SVC_SERVICES) the call is for; absent for the single unnamed one. */
  readonly service?: string | undefined
}

/** `Sent`: honoured already, and sent, with no outcome recorded yet (in flight, or its replica stopped): never sent again. */
export type Refusal = "Malformed" | "Forged" | "Expired" | "OtherCall" | "Reused" | "Sent"

/** Why a state is not honoured; the call is asked about again. */
export class StateRefused extends Data.TaggedError("StateRefused")<{ readonly reason: Refusal }> {
  override get message(): string {
    return `the confirmation state is not honoured (${this.reason})`
  }
}

/** The shared store did not answer: a question cannot be asked, nor an answer honoured (fail closed). */
export class ConfirmationUnrecorded extends Data.TaggedError("ConfirmationUnrecorded")<{ readonly detail: string }> {
  override get message(): string {
    return `the confirmation could not be recorded in the shared store (${this.detail})`
  }
}

/** An answer honoured: `sent` records that the call went out (its outcome known), whatever came of it. */
export interface Honoured {
  readonly sent: Effect.Effect<void>
}

export interface ConfirmationStateShape {
  /** A fresh state for a question about this call. */
  readonly seal: (binding: Binding) => Effect.Effect<string, ConfirmationUnrecorded>
  /** Succeeds once for a state sealed for this very call, within its lifetime; it is then used up. */
  readonly verify: (state: string, binding: Binding) => Effect.Effect<Honoured, StateRefused | ConfirmationUnrecorded>
}

/**
 * Sealed states, kept by the first use. The bundles provide `layer` unless
 * another is provided beneath them: each server built has a memory of used
 * answers of its own, or the shared store's.
 */
export class ConfirmationState extends Context.Tag("svc-mcp/ConfirmationState")<
  ConfirmationState,
  ConfirmationStateShape
>() {}

interface Payload {
  readonly v: 1
  /** Digest of the binding. */
  readonly b: string
  /** Expiry, epoch ms. */
  readonly e: number
  /** Nonce: what single use remembers. */
  readonly n: string
}

// The label keeps a digest made for anything else from ever passing for a confirmation's.
const bindingDigest = (binding: Binding) =>
  digest({
    use: "svc-mcp tools/call confirmation",
    tool: binding.tool,
    selector: binding.selector,
    args: binding.args,
    principal: binding.principal,
    // Absent for a single service, as canonical JSON leaves out what is undefined: its digests stay as they were.
    service: binding.service,
  })

const isPayload = (value: unknown): value is Payload => {
  const p = value as Partial<Payload> | null
  return (
    typeof p === "object" &&
    p !== null &&
    p.v === 1 &&
    typeof p.b === "string" &&
    typeof p.n === "string" &&
    typeof p.e === "number" &&
    Number.isSafeInteger(p.e)
  )
}

// node:crypto is loaded by the first state sealed or verified, not at start: a server whose
// calls need no confirmation never loads it (about 12 ms of a start on Node 24).
const crypto = () => process.getBuiltinModule("node:crypto")

/** A random key of this process's own, made when first needed. */
const processKey = (): (() => Redacted.Redacted<Uint8Array>) => {
  let made: Redacted.Redacted<Uint8Array> | undefined
  return () => {
    made ??= Redacted.make(new Uint8Array(crypto().randomBytes(32)))
    return made
  }
}

const unrecorded = (error: StoreError) => new ConfirmationUnrecorded({ detail: error.detail })

// What the store holds of a question, under one key per nonce: asked (until answered or expired),
// then whether its call is out. One key, so that the answer that wins is decided, and its sending
// recorded, in one command.
const KEY = "confirm:"
const ASKED = "asked"
const SENDING = "sending"
const DONE = "done"

/**
 * Single use across replicas: the nonce recorded when asked, then turned from
 * asked to sending by the one answer that wins (SET XX GET: exactly one of any
 * number of concurrent answers sees it asked). What was sent stays recorded, so
 * that the answer of a client retrying after its replica stopped mid-call is
 * never sent a second time.
 */
const sharedUse = (store: StoreShape) => ({
  asked: (nonce: string, expires: number, now: number) =>
    Effect.mapError(store.set(`${KEY}${nonce}`, ASKED, expires - now), unrecorded),
  answered: (nonce: string, expires: number, now: number) =>
    Effect.gen(function* () {
      // Kept past the state's own expiry, so that a retry within it finds what happened.
      const keep = expires - now + TTL_MS
      const was = yield* Effect.mapError(store.replaceIfPresent(`${KEY}${nonce}`, SENDING, keep), unrecorded)
      if (Option.contains(was, ASKED)) {
        // Not awaited: the outcome is the caller's as soon as it is known, and the record follows it
        // on the same connection; until it lands a retry is refused as sent, never sent again.
        return {
          sent: Effect.asVoid(Effect.forkDaemon(Effect.ignore(store.replaceIfPresent(`${KEY}${nonce}`, DONE, keep)))),
        }
      }
      // An answer that lost put "sending" over "done": put back what its call came to.
      if (Option.contains(was, DONE)) {
        yield* Effect.forkDaemon(Effect.ignore(store.replaceIfPresent(`${KEY}${nonce}`, DONE, keep)))
      }
      // Not asked here (a store that lost its data), answered already, or expired: never honoured.
      return yield* new StateRefused({ reason: Option.contains(was, SENDING) ? "Sent" : "Reused" })
    }),
})

/** What a state carries, where it is sealed whole by this key's `mac`; else why it is refused. */
const unsealed = (state: string, mac: (body: string) => Buffer): Effect.Effect<Payload, StateRefused> =>
  Effect.gen(function* () {
    const parts = state.split(".")
    const [body = "", tag = ""] = parts
    if (parts.length !== 2 || !/^[\w-]+$/.test(body) || !/^[\w-]+$/.test(tag)) {
      return yield* new StateRefused({ reason: "Malformed" })
    }
    const given = Buffer.from(tag, "base64url")
    const expected = mac(body)
    // Only the seal as it was written: a tag changed in the unused bits of its last character
    // decodes to the same bytes, and is refused all the same, as any other change is.
    const canonical = given.toString("base64url") === tag
    if (!canonical || given.length !== expected.length || !crypto().timingSafeEqual(given, expected)) {
      return yield* new StateRefused({ reason: "Forged" })
    }
    let payload: unknown
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
    } catch {
      payload = undefined
    }
    // Sealed here, so a malformed payload is a bug or an old format: refused all the same.
    if (!isPayload(payload)) return yield* new StateRefused({ reason: "Malformed" })
    return payload
  })

const honouredHere: Honoured = { sent: Effect.void }

/**
 * The service over a key (or the function that gives it, called when first
 * needed); used nonces are remembered until their state would have expired
 * anyway, in the shared store when one is provided (Store), else in this process.
 */
export const make = (
  key: Redacted.Redacted<Uint8Array> | (() => Redacted.Redacted<Uint8Array>),
  ttlMs: number = TTL_MS,
): Effect.Effect<ConfirmationStateShape, never, Store> =>
  Effect.gen(function* () {
    const shared = Option.map(yield* Store, sharedUse)
    const used = yield* Ref.make(new Map<string, number>())
    const keyOf = typeof key === "function" ? key : () => key
    const mac = (body: string) => crypto().createHmac("sha256", Redacted.value(keyOf())).update(body).digest()

    const seal = (binding: Binding) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const payload: Payload = {
          v: 1,
          b: bindingDigest(binding),
          e: now + ttlMs,
          n: crypto().randomBytes(16).toString("base64url"),
        }
        const body = Buffer.from(JSON.stringify(payload)).toString("base64url")
        const state = `${body}.${mac(body).toString("base64url")}`
        return Option.isNone(shared)
          ? Effect.succeed(state)
          : Effect.as(shared.value.asked(payload.n, payload.e, now), state)
      })

    const verify = (state: string, binding: Binding) =>
      Effect.gen(function* () {
        const payload = yield* unsealed(state, mac)
        const now = yield* Clock.currentTimeMillis
        if (now >= payload.e) return yield* new StateRefused({ reason: "Expired" })
        if (payload.b !== bindingDigest(binding)) return yield* new StateRefused({ reason: "OtherCall" })
        if (Option.isSome(shared)) return yield* shared.value.answered(payload.n, payload.e, now)
        const fresh = yield* Ref.modify(used, (nonces) => {
          if (nonces.has(payload.n)) return [false, nonces] as const
          const kept = new Map([...nonces].filter(([, expires]) => expires > now))
          kept.set(payload.n, payload.e)
          return [true, kept] as const
        })
        if (!fresh) return yield* new StateRefused({ reason: "Reused" })
        return honouredHere
      })

    return { seal, verify } satisfies ConfirmationStateShape
  })

/** The key of the team's settings provided beneath (SVC_MCP_STATE_KEY: TeamSettings.layer), or a random one for this process (states then die with it). */
export const ofTeam: Effect.Effect<ConfirmationStateShape, never, Store> = Effect.flatMap(TeamSettings, (settings) =>
  make(Option.getOrElse(settings.stateKey, processKey), settings.questionMs),
)

export const layer: Layer.Layer<ConfirmationState, never, Store> = Layer.effect(ConfirmationState, ofTeam)

/** A random key of this process's own: states die with it, and no other replica can verify them. */
export const layerProcessKey: Layer.Layer<ConfirmationState, never, Store> = Layer.effect(
  ConfirmationState,
  Effect.suspend(() => make(processKey())),
)

/** The principal of a call: the caller's key id in per-request mode (prefixed, so that no key id passes for the server), else the server. */
export const principalOf = (keyId: Option.Option<string>): string =>
  Option.match(keyId, { onNone: () => SERVER_PRINCIPAL, onSome: (id) => `key:${id}` })
