/**
 * Asking a 2025-era client over Streamable HTTP, where each POST is served by
 * a server of its own (Http.ts): the question (`elicitation/create`) goes out
 * on the event stream of the POST it belongs to, and the client's answer comes
 * back as a POST of its own, which may reach another server instance or
 * another replica (Answers.ts routes it). The same holds for the client's
 * `notifications/cancelled`.
 *
 * `AskingTransport` sits between a POST's server and the SDK's transport: it
 * gives each question an id of `Answers`, registers the call for its client's
 * cancellation, and seeds the server with what the client declared at
 * initialize (its session token says it), so that the SDK asks as it does over
 * stdio. `routed` takes the answers and cancellations off the POSTs that carry them.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server"
import * as Option from "effect/Option"
import * as CallContext from "../../Call/Context.js"
import type * as Answers from "./Answers.js"
import type * as Session from "./Session.js"

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
  /** The id each question asked went out with, by the server's own id for it. */
  private readonly renamed = new Map<string, string>()
  private seeded = false

  constructor(
    private readonly inner: Transport,
    private readonly answers: Answers.Answers,
    private readonly binding: Answers.Binding,
    private readonly session: Session.Session,
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
        if (question._tag !== "Asked") return
        question.release()
        this.releases.delete(question.release)
        this.renamed.delete(JSON.stringify(asked))
        this.onmessage?.({ ...response, id: asked } as JSONRPCMessage)
      })
      if (question._tag === "Refused") {
        // Over a bound: not asked, and the call hears so at once, as from a client that refused.
        const reason = question.reason
        queueMicrotask(() =>
          this.onmessage?.({ jsonrpc: "2.0", id: asked, error: { code: -32000, message: reason } } as JSONRPCMessage),
        )
        return Promise.resolve()
      }
      this.releases.add(question.release)
      this.renamed.set(JSON.stringify(asked), question.id)
      return this.inner.send({ ...message, id: question.id }, options)
    }
    // The server's cancellation of a question it asked names the question as its client knows it.
    const params = (message as { method?: string; params?: { requestId?: unknown } }).params
    const renamed =
      "method" in message && message.method === "notifications/cancelled"
        ? this.renamed.get(JSON.stringify(params?.requestId))
        : undefined
    if (renamed !== undefined) {
      return this.inner.send({ ...message, params: { ...params, requestId: renamed } } as JSONRPCMessage, options)
    }
    return this.inner.send(message, options)
  }

  private letGo(): void {
    for (const release of this.releases) release()
    this.releases.clear()
    this.renamed.clear()
    for (const release of this.calls.values()) release()
    this.calls.clear()
  }

  close(): Promise<void> {
    this.letGo()
    return this.inner.close()
  }
}

/** What asking a 2025-era client over HTTP needs, made once for the server's life. */
export interface Asked {
  readonly sessions: Session.Sessions
  readonly answers: Answers.Answers
}

export const bindingOf = (context: CallContext.CallContext, session: Session.Session): Answers.Binding => ({
  session: session.nonce,
  principal: CallContext.bindingPrincipalOf(context),
})

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A JSON-RPC response, which a client POSTs only to answer a server's request (2025-era). */
const isResponse = (body: unknown): body is Readonly<Record<string, unknown>> =>
  isObject(body) &&
  body.jsonrpc === "2.0" &&
  body.method === undefined &&
  "id" in body &&
  ("result" in body || "error" in body)

const accepted = () => new Response(null, { status: 202 })

const jsonRpcError = (status: number, message: string) =>
  Response.json({ jsonrpc: "2.0", error: { code: status === 403 ? -32001 : -32600, message }, id: null }, { status })

/**
 * A 2025-era client's answer to a question, or its cancellation of a call, for a call that may run
 * in another server instance or on another replica; undefined for every other request.
 */
export const routed = async (
  asked: Asked,
  context: CallContext.CallContext,
  session: Option.Option<Session.Session>,
  body: unknown,
): Promise<Response | undefined> => {
  if (isResponse(body)) {
    if (Option.isNone(session)) {
      return jsonRpcError(409, "no question was asked of this client: it has no session (initialize first)")
    }
    const delivery = await asked.answers.answer(bindingOf(context, session.value), body as never)
    return delivery._tag === "Delivered" ? accepted() : jsonRpcError(delivery.status, delivery.reason)
  }
  if (Option.isSome(session) && isObject(body) && body.method === "notifications/cancelled" && isObject(body.params)) {
    const requestId = body.params.requestId
    if (typeof requestId === "string" || typeof requestId === "number") {
      await asked.answers.cancel(bindingOf(context, session.value), requestId, body.params.reason)
    }
    return accepted()
  }
  return undefined
}

/** A 2025-era client's `initialize`: the revision it asks for and what it declares. */
export const initializeOf = (
  body: unknown,
): { readonly version: string; readonly capabilities: unknown } | undefined =>
  isObject(body) && body.method === "initialize" && isObject(body.params)
    ? {
        version: typeof body.params.protocolVersion === "string" ? body.params.protocolVersion : "",
        capabilities: body.params.capabilities,
      }
    : undefined

/** The answer to `initialize` with the session token its client sends from then on. */
export const withSession = (response: Response, token: string): Response => {
  if (!response.ok) return response
  const headers = new Headers(response.headers)
  headers.set("mcp-session-id", token)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}
