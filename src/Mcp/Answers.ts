/**
 * Where a 2025-era client's answer to a question, or its cancellation of a
 * call, goes when it is POSTed over HTTP apart from the call: to the call that
 * waits for it, in this process, or through the replicas' shared store on
 * whichever replica holds it. That replica reads the store's key now and then
 * (from the store's tracked copy, so the reading costs no round trip until the
 * key changes).
 *
 * A question's id is 128 random bits, the replica's name and a MAC of the
 * client's session and principal under the replicas' shared key: any replica
 * can tell at once an answer from another session or principal (refused, 403).
 * A repeated answer, and one for a call that no longer waits, are refused too
 * (409). Nothing is sent for any of them.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { StoreShape } from "../Store/Store.js"

/** Who a question or a call belongs to: the client's session and the request's principal. */
export interface Binding {
  readonly session: string
  readonly principal: string
}

/** How often a replica holding a question or a call looks in the shared store for its answer or cancellation. */
const LOOK_EVERY_MS = 100

/** How long an answer or a cancellation is kept in the shared store: the SDK's round time-out. */
const KEPT_MS = 600_000

/** A call is looked for in the store only once it has been in flight this long: most calls are over before. */
const CANCEL_LOOK_AFTER_MS = 200

export type Delivery =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "Refused"; readonly status: number; readonly reason: string }

const delivered: Delivery = { _tag: "Delivered" }
const refused = (status: number, reason: string): Delivery => ({ _tag: "Refused", status, reason })
const NOT_WAITING = "no call waits for this answer (answered already, cancelled or timed out): nothing sent"

export interface Answers {
  /** Registers a question; `deliver` gets the client's response. Its id, and how to let it go. */
  readonly question: (
    binding: Binding,
    deliver: (message: JSONRPCMessage) => void,
  ) => { readonly id: string; readonly release: () => void }
  /** Registers a call in flight, cancellable by its client; how to let it go. */
  readonly call: (binding: Binding, requestId: RequestId, cancel: (reason: unknown) => void) => () => void
  /** A client's response, from a POST with this binding. */
  readonly answer: (binding: Binding, message: JSONRPCMessage) => Promise<Delivery>
  /** A client's `notifications/cancelled`, from a POST with this binding. */
  readonly cancel: (binding: Binding, requestId: RequestId, reason: unknown) => Promise<void>
}

interface Options {
  /** The replicas' shared key (SVC_MCP_STATE_KEY), or this process's own. */
  readonly key: Redacted.Redacted<Uint8Array>
  readonly store: Option.Option<StoreShape>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly warn: (message: string) => void
}

/** What this process's parts share: its name among replicas, the MAC, what waits here. */
interface Here extends Options {
  readonly replica: string
  readonly macOf: (nonce: string, binding: Binding) => Buffer
  readonly waiting: Map<string, { readonly binding: Binding; readonly deliver: (message: JSONRPCMessage) => void }>
  readonly calls: Map<string, { readonly binding: Binding; readonly cancel: (reason: unknown) => void }>
}

const sameBinding = (a: Binding, b: Binding) => a.session === b.session && a.principal === b.principal

const callKey = (binding: Binding, requestId: RequestId) => `${binding.session}:${JSON.stringify(requestId)}`

/** Reads `key` of the shared store every LOOK_EVERY_MS, until `found` says it is done or the returned stop is called. */
const lookFor = (here: Here, key: string, found: (value: string) => boolean, after = LOOK_EVERY_MS) => {
  if (Option.isNone(here.store)) return () => {}
  const shared = here.store.value
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const again = () => {
    if (!stopped) timer = setTimeout(tick, LOOK_EVERY_MS)
  }
  const tick = () => {
    timer = undefined
    here.run(Effect.option(shared.get(key))).then((value) => {
      if (stopped) return
      const text = Option.flatten(value)
      if (Option.isSome(text) && found(text.value)) return
      again()
    }, again)
  }
  timer = setTimeout(tick, after)
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
  }
}

/** Marks a question as no longer waiting in the shared store, so that an answer for it is refused on any replica. */
const closeInStore = (here: Here, nonce: string) =>
  Option.isNone(here.store)
    ? Promise.resolve()
    : here.run(Effect.ignore(here.store.value.setIfAbsent(`answer:${nonce}`, "", KEPT_MS)))

const questionOf =
  (here: Here): Answers["question"] =>
  (binding, deliver) => {
    const nonce = randomBytes(16).toString("base64url")
    const id = `q1.${here.replica}.${nonce}.${here.macOf(nonce, binding).toString("base64url")}`
    here.waiting.set(nonce, { binding, deliver })
    const stopLooking = lookFor(here, `answer:${nonce}`, (text) => {
      const entry = here.waiting.get(nonce)
      // Empty: the question was answered or let go elsewhere.
      if (entry === undefined || text === "") return true
      try {
        const message = JSON.parse(text) as JSONRPCMessage
        here.waiting.delete(nonce)
        entry.deliver(message)
      } catch {
        here.warn("a question's answer in the shared store is not JSON: refused, nothing sent")
      }
      return true
    })
    const release = () => {
      stopLooking()
      if (here.waiting.delete(nonce)) void closeInStore(here, nonce)
    }
    return { id, release }
  }

const callOf =
  (here: Here): Answers["call"] =>
  (binding, requestId, cancel) => {
    const key = callKey(binding, requestId)
    here.calls.set(key, { binding, cancel })
    const found = (reason: string) => {
      here.calls.delete(key)
      cancel(reason === "" ? undefined : reason)
      return true
    }
    const stopLooking = lookFor(here, `cancel:${key}`, found, CANCEL_LOOK_AFTER_MS)
    return () => {
      stopLooking()
      here.calls.delete(key)
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
      here.waiting.delete(nonce)
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
    return first.right ? delivered : refused(409, NOT_WAITING)
  }

const cancelOf =
  (here: Here): Answers["cancel"] =>
  async (binding, requestId, reason) => {
    const key = callKey(binding, requestId)
    const local = here.calls.get(key)
    if (local !== undefined && sameBinding(local.binding, binding)) {
      here.calls.delete(key)
      local.cancel(reason)
      return
    }
    if (Option.isSome(here.store)) {
      const text = typeof reason === "string" ? reason : ""
      await here.run(Effect.ignore(here.store.value.set(`cancel:${key}`, text, KEPT_MS)))
    }
  }

/** The answers of this process. */
export const make = (options: Options): Answers => {
  const derived = createHmac("sha256", Redacted.value(options.key)).update("svc-mcp question id").digest()
  const here: Here = {
    ...options,
    replica: randomBytes(6).toString("base64url"),
    macOf: (nonce, binding) =>
      createHmac("sha256", derived)
        .update(`${nonce}\u0000${binding.session}\u0000${binding.principal}`)
        .digest()
        .subarray(0, 12),
    waiting: new Map(),
    calls: new Map(),
  }
  return { question: questionOf(here), call: callOf(here), answer: answerOf(here), cancel: cancelOf(here) }
}
