/**
 * Where a 2025-era client's answer to a question, or its cancellation of a
 * call, goes when it is POSTed over HTTP apart from the call: to the call that
 * waits for it, in this process, or through the replicas' shared store on
 * whichever replica holds it.
 *
 * A question's id is 128 random bits, the replica's name and a MAC of the
 * client's session and principal under the replicas' shared key: any replica
 * can tell at once an answer from another session or principal (refused, 403).
 * A repeated answer, and one for a call that no longer waits, are refused too
 * (409). Nothing is sent for any of them.
 *
 * What a caller can open is bounded: questions per session, per principal and
 * in all (one more is refused at once), each for a lifetime; a cancellation
 * reaches the store only for a call in flight there, its reason cut short.
 * A replica reads one key of the store for all it holds, its inbox, which
 * another replica touches after it left an answer or a cancellation for it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { HttpLimits } from "../../Settings/Http.js"
import type { StoreShape } from "../../Store/Store.js"
import * as Inbox from "./Inbox.js"

/** Who a question or a call belongs to: the client's session and the request's principal. */
export interface Binding {
  readonly session: string
  readonly principal: string
}

/** How long an answer is kept in the shared store: the SDK's round time-out. */
const KEPT_MS = 600_000

/** How long a cancellation is kept for the replica that holds its call to read it. */
const CANCEL_KEPT_MS = 60_000

/** A call is made known to the store only once it has been in flight this long: most calls are over before. */
const CALL_KNOWN_AFTER_MS = 200

/** The longest reason of a cancellation passed on: the rest is cut. */
export const MAX_REASON_CHARS = 256

type Delivery =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "Refused"; readonly status: number; readonly reason: string }

const delivered: Delivery = { _tag: "Delivered" }
const refused = (status: number, reason: string): Delivery => ({ _tag: "Refused", status, reason })
const NOT_WAITING = "no call waits for this answer (answered already, cancelled or timed out): nothing sent"

type Asked =
  | { readonly _tag: "Asked"; readonly id: string; readonly release: () => void }
  | { readonly _tag: "Refused"; readonly reason: string }

export interface Answers {
  /**
   * Registers a question; `deliver` gets the client's response, or an error once the question's
   * lifetime is over. Its id and how to let it go; or, over a bound, why it is not asked.
   */
  readonly question: (binding: Binding, deliver: (message: JSONRPCMessage) => void) => Asked
  /** Registers a call in flight, cancellable by its client; how to let it go. */
  readonly call: (binding: Binding, requestId: RequestId, cancel: (reason: string | undefined) => void) => () => void
  /** A client's response, from a POST with this binding. */
  readonly answer: (binding: Binding, message: JSONRPCMessage) => Promise<Delivery>
  /** A client's `notifications/cancelled`, from a POST with this binding. */
  readonly cancel: (binding: Binding, requestId: RequestId, reason: unknown) => Promise<void>
}

type Limits = Pick<HttpLimits, "questionsPerSession" | "questionsPerPrincipal" | "questions" | "questionMs">

interface Options {
  /** The replicas' shared key (SVC_MCP_STATE_KEY), or this process's own. */
  readonly key: Redacted.Redacted<Uint8Array>
  readonly store: Option.Option<StoreShape>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly warn: (message: string) => void
  readonly limits: Limits
}

interface Waiting {
  readonly binding: Binding
  readonly deliver: (message: JSONRPCMessage) => void
  readonly timer: NodeJS.Timeout
}

interface InFlight {
  readonly binding: Binding
  readonly cancel: (reason: string | undefined) => void
  /** The store's name of the call, once it is known there. */
  known?: string
}

/** What this process's parts share: its name among replicas, the MAC, what waits here. */
interface Here extends Options {
  readonly replica: string
  readonly macOf: (nonce: string, binding: Binding) => Buffer
  readonly waiting: Map<string, Waiting>
  readonly calls: Map<string, InFlight>
  readonly open: { readonly bySession: Map<string, number>; readonly byPrincipal: Map<string, number> }
  /** Calls in flight here that the store knows of. */
  readonly known: { count: number }
  readonly inbox: Inbox.Inbox
}

const sameBinding = (a: Binding, b: Binding) => a.session === b.session && a.principal === b.principal

const callKey = (binding: Binding, requestId: RequestId) => `${binding.session}:${JSON.stringify(requestId)}`

/** The store's name of a call: a digest, as the request id is the client's to choose, of any length. */
const storedCall = (key: string) => createHash("sha256").update(key).digest("base64url")

/** A cancellation's reason as it is passed on: a string, cut to MAX_REASON_CHARS. */
const reasonOf = (reason: unknown): string | undefined =>
  typeof reason === "string" ? reason.slice(0, MAX_REASON_CHARS) : undefined

const bump = (counts: Map<string, number>, key: string, by: number) => {
  const n = (counts.get(key) ?? 0) + by
  if (n <= 0) counts.delete(key)
  else counts.set(key, n)
}

/** Takes the question off what waits here; whether it was there. */
const forget = (here: Here, nonce: string): Waiting | undefined => {
  const entry = here.waiting.get(nonce)
  if (entry === undefined) return undefined
  here.waiting.delete(nonce)
  clearTimeout(entry.timer)
  bump(here.open.bySession, entry.binding.session, -1)
  bump(here.open.byPrincipal, entry.binding.principal, -1)
  return entry
}

/** Marks a question as no longer waiting in the shared store, so that an answer for it is refused on any replica. */
const closeInStore = (here: Here, nonce: string) =>
  Option.isNone(here.store)
    ? Promise.resolve()
    : here.run(Effect.ignore(here.store.value.setIfAbsent(`answer:${nonce}`, "", KEPT_MS)))

/** Why one more question of `binding` is not asked, if a bound is reached. */
const overBound = (here: Here, binding: Binding): string | undefined => {
  const { limits, open } = here
  const over = (variable: string, n: number, what: string) =>
    `${n} questions of ${what} wait for an answer already (${variable}=${n}): answer or cancel one, then retry; nothing was sent`
  if ((open.bySession.get(binding.session) ?? 0) >= limits.questionsPerSession) {
    return over("SVC_MCP_QUESTIONS_PER_SESSION", limits.questionsPerSession, "this session")
  }
  if ((open.byPrincipal.get(binding.principal) ?? 0) >= limits.questionsPerPrincipal) {
    return over("SVC_MCP_QUESTIONS_PER_PRINCIPAL", limits.questionsPerPrincipal, "these credentials")
  }
  if (here.waiting.size >= limits.questions) return over("SVC_MCP_QUESTIONS_MAX", limits.questions, "this server")
  return undefined
}

const questionOf =
  (here: Here): Answers["question"] =>
  (binding, deliver) => {
    const bound = overBound(here, binding)
    if (bound !== undefined) return { _tag: "Refused", reason: bound }
    const nonce = randomBytes(16).toString("base64url")
    const id = `q1.${here.replica}.${nonce}.${here.macOf(nonce, binding).toString("base64url")}`
    const lifetime = here.limits.questionMs
    const timer = setTimeout(() => {
      const entry = forget(here, nonce)
      if (entry === undefined) return
      void closeInStore(here, nonce)
      entry.deliver({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32001,
          message: `no answer within ${Math.round(lifetime / 1000)} s (SVC_MCP_QUESTION_TIMEOUT): nothing was sent`,
        },
      })
    }, lifetime)
    timer.unref()
    here.waiting.set(nonce, { binding, deliver, timer })
    bump(here.open.bySession, binding.session, 1)
    bump(here.open.byPrincipal, binding.principal, 1)
    here.inbox.wake()
    const release = () => {
      if (forget(here, nonce) !== undefined) void closeInStore(here, nonce)
    }
    return { _tag: "Asked", id, release }
  }

/** What an answer or a cancellation left for this replica in the store, read once its inbox changed. */
const look = (here: Here, shared: StoreShape): Promise<void> => {
  const answers = [...here.waiting.keys()].map((nonce) =>
    here.run(Effect.option(shared.get(`answer:${nonce}`))).then((value) => {
      const text = Option.flatten(value)
      // Empty: the question was answered or let go elsewhere.
      if (Option.isNone(text) || text.value === "") return
      const entry = forget(here, nonce)
      if (entry === undefined) return
      try {
        entry.deliver(JSON.parse(text.value) as JSONRPCMessage)
      } catch {
        here.warn("a question's answer in the shared store is not JSON: refused, nothing sent")
      }
    }),
  )
  const cancels = [...here.calls.entries()].flatMap(([key, call]) =>
    call.known === undefined
      ? []
      : [
          here.run(Effect.option(shared.get(`cancel:${call.known}`))).then((value) => {
            const reason = Option.flatten(value)
            if (Option.isNone(reason) || here.calls.get(key) !== call) return
            here.calls.delete(key)
            call.cancel(reason.value === "" ? undefined : reason.value)
          }),
        ],
  )
  return Promise.all([...answers, ...cancels]).then(() => undefined)
}

const callOf =
  (here: Here): Answers["call"] =>
  (binding, requestId, cancel) => {
    const key = callKey(binding, requestId)
    const call: InFlight = { binding, cancel }
    here.calls.set(key, call)
    // Made known to the store, so that its cancellation landing on another replica is kept for this one.
    const timer = Option.isNone(here.store)
      ? undefined
      : setTimeout(() => {
          if (here.calls.get(key) !== call || Option.isNone(here.store)) return
          call.known = storedCall(key)
          here.known.count++
          here.inbox.wake()
          void here.run(Effect.ignore(here.store.value.set(`call:${call.known}`, here.replica, KEPT_MS)))
        }, CALL_KNOWN_AFTER_MS)
    timer?.unref()
    return () => {
      if (timer !== undefined) clearTimeout(timer)
      if (here.calls.get(key) === call) {
        here.calls.delete(key)
      }
      if (call.known !== undefined && Option.isSome(here.store)) {
        here.known.count--
        void here.run(Effect.ignore(here.store.value.remove(`call:${call.known}`)))
      }
    }
  }

/** The question an id names, when its MAC holds for this binding. */
const named = (here: Here, id: unknown, binding: Binding) => {
  if (typeof id !== "string") return undefined
  const [version, holder, nonce, mac, extra] = id.split(".")
  if (version !== "q1" || holder === undefined || nonce === undefined || mac === undefined || extra !== undefined) {
    return undefined
  }
  const given = Buffer.from(mac, "base64url")
  const expected = here.macOf(nonce, binding)
  return given.length === expected.length && timingSafeEqual(given, expected) ? { holder, nonce } : undefined
}

const answerOf =
  (here: Here): Answers["answer"] =>
  async (binding, message) => {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) {
      return refused(400, "not a JSON-RPC response")
    }
    const question = named(here, message.id, binding)
    if (question === undefined) {
      return refused(403, "this answer names no question asked of this client's session: refused, nothing sent")
    }
    const { holder, nonce } = question
    if (holder === here.replica) {
      const entry = here.waiting.get(nonce)
      if (entry === undefined || !sameBinding(entry.binding, binding)) return refused(409, NOT_WAITING)
      forget(here, nonce)
      // Recorded, so that the same answer replayed to another replica is refused there.
      await closeInStore(here, nonce)
      entry.deliver(message)
      return delivered
    }
    if (Option.isNone(here.store)) return refused(409, "no call of this server waits for this answer: nothing sent")
    const put = here.store.value.setIfAbsent(`answer:${nonce}`, JSON.stringify(message), KEPT_MS)
    const first = await here.run(Effect.either(put))
    if (first._tag === "Left") {
      return refused(503, `the shared store did not take the answer (${first.left.detail}): nothing sent, answer again`)
    }
    if (!first.right) return refused(409, NOT_WAITING)
    await Inbox.touch(here, holder)
    return delivered
  }

const cancelOf =
  (here: Here): Answers["cancel"] =>
  async (binding, requestId, reason) => {
    const key = callKey(binding, requestId)
    const local = here.calls.get(key)
    if (local !== undefined && sameBinding(local.binding, binding)) {
      here.calls.delete(key)
      local.cancel(reasonOf(reason))
      return
    }
    if (Option.isNone(here.store)) return
    const shared = here.store.value
    // Kept only for a call in flight on another replica, which made it known: any other is dropped.
    const stored = storedCall(key)
    const holder = Option.flatten(await here.run(Effect.option(shared.get(`call:${stored}`))))
    if (Option.isNone(holder) || holder.value === here.replica) return
    await here.run(Effect.ignore(shared.set(`cancel:${stored}`, reasonOf(reason) ?? "", CANCEL_KEPT_MS)))
    await Inbox.touch(here, holder.value)
  }

/** The answers of this process. */
export const make = (options: Options): Answers => {
  const derived = createHmac("sha256", Redacted.value(options.key)).update("svc-mcp question id").digest()
  const replica = randomBytes(6).toString("base64url")
  const waiting = new Map<string, Waiting>()
  const calls = new Map<string, InFlight>()
  const known = { count: 0 }
  const here: Here = {
    ...options,
    replica,
    macOf: (nonce, binding) =>
      createHmac("sha256", derived)
        .update(`${nonce}\u0000${binding.session}\u0000${binding.principal}`)
        .digest()
        .subarray(0, 12),
    waiting,
    calls,
    open: { bySession: new Map(), byPrincipal: new Map() },
    known,
    inbox: Inbox.make({
      ...options,
      replica,
      busy: () => waiting.size > 0 || known.count > 0,
      changed: (shared) => look(here, shared),
    }),
  }
  return { question: questionOf(here), call: callOf(here), answer: answerOf(here), cancel: cancelOf(here) }
}
