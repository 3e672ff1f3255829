/**
 * Asking a 2025-era client over Streamable HTTP, where each POST is served by
 * a server of its own (Http.ts): the question (`elicitation/create`) goes out
 * on the event stream of the POST it belongs to, and the client's answer comes
 * back as a POST of its own, which may reach another server instance or
 * another replica. The same holds for the client's `notifications/cancelled`.
 *
 * - `AskingTransport` sits between a POST's server and the SDK's transport. It
 *   gives each question an id that cannot be guessed, bound by a MAC to the
 *   client's session and principal, and seeds the server with what the client
 *   declared at initialize (its session token says it), so that the SDK asks
 *   as it does over stdio.
 * - `Answers` routes an answer or a cancellation to the call that waits for it:
 *   in this process, or through the replicas' shared store, where the replica
 *   holding the call looks for it (read from the store's tracked copy, so the
 *   looking costs no round trip until the key changes).
 *
 * An answer from another session or principal, a repeated one, and one for a
 * call that no longer waits are refused, and nothing is sent.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { StoreShape } from "../Store/Store.js"
import type { Session } from "./Session.js"

/** Who a question or a call belongs to: the client's session and the request's principal. */
export interface Binding {
  readonly session: string
  readonly principal: string
}

/** How often a replica holding a question or a call looks in the shared store for its answer or cancellation. */
export const LOOK_EVERY_MS = 100

/** How long an answer or a cancellation is kept in the shared store: the SDK's round time-out. */
const KEPT_MS = 600_000

/** A call is looked for in the store only once it has been in flight this long: most calls are over before. */
const CANCEL_LOOK_AFTER_MS = 200

export type Delivery =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "Refused"; readonly status: number; readonly reason: string }

const delivered: Delivery = { _tag: "Delivered" }
const refused = (status: number, reason: string): Delivery => ({ _tag: "Refused", status, reason })

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

interface Waiting {
  readonly binding: Binding
  readonly deliver: (message: JSONRPCMessage) => void
}

const sameBinding = (a: Binding, b: Binding) => a.session === b.session && a.principal === b.principal

const callKey = (binding: Binding, requestId: RequestId) => `${binding.session}:${JSON.stringify(requestId)}`

/**
 * The answers of this process: `key` makes the questions' MACs (the replicas'
 * shared state key, so that any replica can tell a forged answer at once),
 * `store` carries what lands on another replica.
 */
export const make = (options: {
  readonly key: Redacted.Redacted<Uint8Array>
  readonly store: Option.Option<StoreShape>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly warn: (message: string) => void
}): Answers => {
  const { store, run, warn } = options
  const replica = randomBytes(6).toString("base64url")
  const derived = createHmac("sha256", Redacted.value(options.key)).update("svc-mcp question id").digest()
  const macOf = (nonce: string, binding: Binding) =>
    createHmac("sha256", derived)
      .update(`${nonce}\u0000${binding.session}\u0000${binding.principal}`)
      .digest()
      .subarray(0, 12)
  const waiting = new Map<string, Waiting>()
  const calls = new Map<string, { readonly binding: Binding; readonly cancel: (reason: unknown) => void }>()

  /** Reads a key of the shared store now and then, until `found` says it is done or `stop` is called. */
  const look = (shared: StoreShape, key: string, found: (value: string) => boolean, after = 0) => {
    let stopped = false
    let timer: NodeJS.Timeout | undefined
    const tick = () => {
      timer = undefined
      run(Effect.option(shared.get(key))).then(
        (value) => {
          if (stopped) return
          const text = Option.flatten(value)
          if (Option.isSome(text) && found(text.value)) return
          timer = setTimeout(tick, LOOK_EVERY_MS)
        },
        () => {
          if (!stopped) timer = setTimeout(tick, LOOK_EVERY_MS)
        },
      )
    }
    timer = setTimeout(tick, after || LOOK_EVERY_MS)
    return () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
    }
  }

  const question: Answers["question"] = (binding, deliver) => {
    const nonce = randomBytes(16).toString("base64url")
    const id = `q1.${replica}.${nonce}.${macOf(nonce, binding).toString("base64url")}`
    waiting.set(nonce, { binding, deliver })
    const stopLooking = Option.match(store, {
      onNone: () => () => {},
      onSome: (shared) =>
        look(shared, `answer:${nonce}`, (text) => {
          const entry = waiting.get(nonce)
          // Empty: the question was answered or let go elsewhere.
          if (entry === undefined || text === "") return true
          try {
            const message = JSON.parse(text) as JSONRPCMessage
            waiting.delete(nonce)
            entry.deliver(message)
          } catch {
            warn("a question's answer in the shared store is not JSON: refused, nothing sent")
          }
          return true
        }),
    })
    const release = () => {
      stopLooking()
      if (!waiting.delete(nonce)) return
      // A question no longer waits: an answer that comes for it later, on any replica, is refused.
      if (Option.isSome(store)) void run(Effect.ignore(store.value.setIfAbsent(`answer:${nonce}`, "", KEPT_MS)))
    }
    return { id, release }
  }

  const call: Answers["call"] = (binding, requestId, cancel) => {
    const key = callKey(binding, requestId)
    calls.set(key, { binding, cancel })
    const stopLooking = Option.match(store, {
      onNone: () => () => {},
      onSome: (shared) =>
        look(
          shared,
          `cancel:${key}`,
          (reason) => {
            calls.delete(key)
            cancel(reason === "" ? undefined : reason)
            return true
          },
          CANCEL_LOOK_AFTER_MS,
        ),
    })
    return () => {
      stopLooking()
      calls.delete(key)
    }
  }

  /** The question an id names, when its MAC holds for this binding. */
  const parse = (id: unknown, binding: Binding) => {
    if (typeof id !== "string") return undefined
    const [version, holder, nonce, mac, extra] = id.split(".")
    if (version !== "q1" || holder === undefined || nonce === undefined || mac === undefined || extra !== undefined) {
      return undefined
    }
    const given = Buffer.from(mac, "base64url")
    const expected = macOf(nonce, binding)
    return given.length === expected.length && timingSafeEqual(given, expected) ? { holder, nonce } : undefined
  }

  const answer: Answers["answer"] = async (binding, message) => {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) {
      return refused(400, "not a JSON-RPC response")
    }
    const named = parse(message.id, binding)
    if (named === undefined) {
      return refused(403, "this answer names no question asked of this client's session: refused, nothing sent")
    }
    const { holder, nonce } = named
    if (holder === replica) {
      const entry = waiting.get(nonce)
      if (entry === undefined || !sameBinding(entry.binding, binding)) {
        return refused(409, "no call waits for this answer (answered already, cancelled or timed out): nothing sent")
      }
      waiting.delete(nonce)
      if (Option.isSome(store)) {
        // Recorded, so that the same answer replayed to another replica is refused there.
        await run(Effect.ignore(store.value.setIfAbsent(`answer:${nonce}`, "", KEPT_MS)))
      }
      entry.deliver(message)
      return delivered
    }
    if (Option.isNone(store)) {
      return refused(409, "no call of this server waits for this answer: nothing sent")
    }
    const first = await run(Effect.either(store.value.setIfAbsent(`answer:${nonce}`, JSON.stringify(message), KEPT_MS)))
    if (first._tag === "Left") {
      return refused(503, `the shared store did not take the answer (${first.left.detail}): nothing sent, answer again`)
    }
    return first.right
      ? delivered
      : refused(409, "no call waits for this answer (answered already, cancelled or timed out): nothing sent")
  }

  const cancel: Answers["cancel"] = async (binding, requestId, reason) => {
    const key = callKey(binding, requestId)
    const local = calls.get(key)
    if (local !== undefined && sameBinding(local.binding, binding)) {
      calls.delete(key)
      local.cancel(reason)
      return
    }
    if (Option.isSome(store)) {
      const text = typeof reason === "string" ? reason : ""
      await run(Effect.ignore(store.value.set(`cancel:${key}`, text, KEPT_MS)))
    }
  }

  return { question, call, answer, cancel }
}

/** The id of the `initialize` the transport replays to a POST's server: never sent, its answer dropped. */
const SEED_ID = "svc-mcp-session-seed"

/**
 * The transport of one POST's server, between it and the SDK's: questions get
 * ids of `Answers`, the call's cancellation is registered, and a `tools/call`
 * of a session whose client declared elicitation is preceded by the client's
 * `initialize` as its token tells it.
 */
export class AskingTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined
  private readonly releases = new Set<() => void>()
  private readonly calls = new Map<string, () => void>()
  private seeded = false

  constructor(
    private readonly inner: Transport,
    private readonly answers: Answers,
    private readonly binding: Binding,
    private readonly session: Session,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  setSupportedProtocolVersions(versions: Array<string>): void {
    ;(this.inner as { setSupportedProtocolVersions?: (v: Array<string>) => void }).setSupportedProtocolVersions?.(
      versions,
    )
  }

  start(): Promise<void> {
    this.inner.onclose = () => {
      this.letGo()
      this.onclose?.()
    }
    this.inner.onerror = (error) => this.onerror?.(error)
    this.inner.onmessage = (message, extra) => this.received(message, extra)
    return this.inner.start()
  }

  private received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isJSONRPCRequest(message)) {
      if (message.method === "tools/call" && !this.seeded && Option.isSome(this.session.elicitation)) {
        this.seeded = true
        this.onmessage?.(
          {
            jsonrpc: "2.0",
            id: SEED_ID,
            method: "initialize",
            params: {
              protocolVersion: this.session.version,
              capabilities: { elicitation: this.session.elicitation.value },
              clientInfo: { name: "svc-mcp-session", version: "0" },
            },
          },
          extra,
        )
      }
      const requestId = message.id
      const release = this.answers.call(this.binding, requestId, (reason) => {
        this.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, ...(typeof reason === "string" ? { reason } : {}) },
        })
        // A cancelled request gets no response, so nothing would end its POST's stream: this
        // transport serves that one POST, and closing it ends the stream once the abort has run.
        setImmediate(() => void this.close().catch(() => undefined))
      })
      this.calls.set(JSON.stringify(requestId), release)
    }
    this.onmessage?.(message, extra)
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id === SEED_ID) return Promise.resolve()
      const key = JSON.stringify(message.id)
      this.calls.get(key)?.()
      this.calls.delete(key)
      return this.inner.send(message, options)
    }
    if (isJSONRPCRequest(message)) {
      const asked = message.id
      const question = this.answers.question(this.binding, (response) => {
        question.release()
        this.releases.delete(question.release)
        this.onmessage?.({ ...response, id: asked } as JSONRPCMessage)
      })
      this.releases.add(question.release)
      return this.inner.send({ ...message, id: question.id }, options)
    }
    return this.inner.send(message, options)
  }

  private letGo(): void {
    for (const release of this.releases) release()
    this.releases.clear()
    for (const release of this.calls.values()) release()
    this.calls.clear()
  }

  close(): Promise<void> {
    this.letGo()
    return this.inner.close()
  }
}
