/**
 * What one tool call carries, as one value: who calls (the caller's address,
 * the credentials its request brought, the identity it signed in as), which of
 * several services it names, the client's trace context, and where its logs
 * and progress go. The adapter sets it once where it resolves the call
 * (Mcp/Calls/ToolCall.ts, from what the HTTP request brought: Operations/RequestContext.ts);
 * everything below reads it (the client's X-Forwarded-For, Auth.perRequest,
 * the call's record, telemetry, the confirmation's binding, the log forwarder).
 *
 * It lives in one FiberRef, so that the fibers a call forks inherit it, and so
 * that the log forwarder (a Logger, which sees the fiber's refs and not its
 * services) can read it. Nothing here imports the rest of the program.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { Asked } from "./Asked.js"

/** A caller's own service credentials (SVC_MCP_CREDENTIALS=per-request). */
export interface Caller {
  /** The API key: the caller's name in audit lines and bindings. */
  readonly key: string
  readonly secret: Redacted.Redacted<string>
}

/** The service's permission levels a minted identity may be given (None would mint a key that can do nothing). */
export const LEVELS = ["Read", "Execute", "Write"] as const
export type Level = (typeof LEVELS)[number]

/** A resource on which a minted identity's level is given: its type as the service names it, and its id or name. */
export interface Target {
  readonly type: string
  readonly id: string
}

/**
 * What a minted identity may do at the service: `level` on every resource
 * type, or, with targets, on those resources only.
 */
export interface Grant {
  readonly level: Level
  readonly targets: ReadonlyArray<Target>
}

/**
 * The credentials a call's request brought: none (the server's own are used),
 * one caller's, or, among several services, a caller per service it sent a
 * header pair for (of which a call uses only its own service's); or, signed
 * in, a key the server mints for the person at each service (SignIn's Auth
 * asks the Mint for it as the call is sent).
 */
export type Credentials =
  | { readonly _tag: "Server" }
  | { readonly _tag: "Caller"; readonly caller: Caller }
  | { readonly _tag: "PerService"; readonly callers: ReadonlyMap<string, Caller> }
  | { readonly _tag: "Minted"; readonly person: string; readonly grant: Grant }

/** Who signed in (an OAuth access token the server verified). */
export interface Identity {
  readonly issuer: string
  readonly subject: string
  /** The configured claim's value, e.g. an email: how the identity is named in audit lines. */
  readonly name: string
  readonly scopes: ReadonlyArray<string>
}

/** The W3C trace context a client sent in a call's `_meta`. */
export interface TraceContext {
  /** e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01` */
  readonly traceparent?: string
  readonly tracestate?: string
  readonly baggage?: string
}

/** Where a call's log entries go to its client (Mcp/Calls/ClientLog.ts makes one). */
export interface ClientLog {
  /** Sends one log entry to this client, if its level is one the client asked for. */
  readonly send: (entry: Logger.Logger.Options<unknown>) => void
  /** Whether the client asked for debug messages, which are not produced otherwise. */
  readonly wantsDebug: boolean
}

/** Where a call that waits reports how far it has come. */
export interface ProgressSink {
  readonly report: (progress: number, message: string) => Effect.Effect<void>
}

export interface CallContext {
  /** The caller's address, named to the service in X-Forwarded-For; none over stdio. */
  readonly address: Option.Option<string>
  readonly credentials: Credentials
  /** The service the call is for, among several (SVC_SERVICES); none for the one unnamed service. */
  readonly service: Option.Option<string>
  /** The trace context of the call's `_meta` (empty without one). */
  readonly trace: TraceContext
  /** The `traceparent` header of the HTTP request, for a call whose `_meta` names none (kept only when traced). */
  readonly traceparent: Option.Option<string>
  /** The client's log sink; none when it asked for no log notifications. */
  readonly log: Option.Option<ClientLog>
  /** The client's progress sink; none when it gave no progress token. */
  readonly progress: Option.Option<ProgressSink>
  /** The identity the caller signed in as; none without sign-in. */
  readonly identity: Option.Option<Identity>
  /**
   * The session a 2025-era client over HTTP was issued at initialize (Mcp/Asking/Session.ts), by its
   * nonce: how the guard tells apart callers who share credentials and an address. None elsewhere.
   */
  readonly session: Option.Option<string>
  /**
   * SVC_GUARD: the untrusted text the caller read before this change, within its window (what it
   * was, in words), whether the guard held the change or let it through; the audit line's
   * `guarded`. None for reads and for changes outside a window.
   */
  readonly guarded: Option.Option<string>
  /**
   * Why the call is asked before it is sent (Asked.ts), resolved once; the question, the audit
   * line's `confirmation` and telemetry read it. None for a call nothing asks about.
   */
  readonly asked: Option.Option<Asked>
  /**
   * A secret that passed between the person and the service on a page of svc-mcp's, out of the
   * model's sight (Mcp/Calls/Handover.ts, TakeIn.ts): the audit line's `secret`. Absent elsewhere.
   */
  readonly secret?: SecretPassed
}

/** Which params' secrets passed, and which way: handed to the person, or taken in from them. Never a value. */
export interface SecretPassed {
  readonly passed: "handed" | "taken"
  readonly params: ReadonlyArray<string>
}

/** A call that brought nothing: it runs as the server, untraced, unlogged. */
export const empty: CallContext = {
  address: Option.none(),
  credentials: { _tag: "Server" },
  service: Option.none(),
  trace: {},
  traceparent: Option.none(),
  log: Option.none(),
  progress: Option.none(),
  identity: Option.none(),
  session: Option.none(),
  guarded: Option.none(),
  asked: Option.none(),
}

/** The context of the call the current fiber serves (`empty` outside a call). */
export const current: FiberRef.FiberRef<CallContext> = FiberRef.unsafeMake(empty)

/** The context of the current call. */
export const get: Effect.Effect<CallContext> = FiberRef.get(current)

/** Runs `self` as a call with this context. */
export const within =
  (context: CallContext) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(self, current, context)

/**
 * Sets this context for the rest of the current fiber. A call's Effect is its fiber's whole life
 * (Mcp/Server/Server.ts runs each call as a fiber of its own), so nothing is left to restore: `within`'s
 * restoring would be a dozen steps of every call for nothing.
 */
export const set = (context: CallContext): Effect.Effect<void> => FiberRef.set(current, context)

/** Runs `self` with the current context changed by `f`. */
export const locallyWith =
  (f: (context: CallContext) => CallContext) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locallyWith(self, current, f)

/**
 * The caller whose credentials the call sends: its own, or among several
 * services the one its request brought for the call's service. Nothing of one
 * service's credentials can reach another: without a service, none.
 */
export const callerOf = (context: CallContext): Option.Option<Caller> => {
  const { credentials } = context
  switch (credentials._tag) {
    case "Server":
    case "Minted":
      return Option.none()
    case "Caller":
      return Option.some(credentials.caller)
    case "PerService":
      return Option.flatMap(context.service, (name) => Option.fromNullable(credentials.callers.get(name)))
  }
}

/**
 * The caller a record names: the call's own, or, for a call that names no
 * service of those configured, the first of its request's callers, in the
 * services' order.
 */
export const namedCallerOf = (context: CallContext): Option.Option<Caller> => {
  const own = callerOf(context)
  if (Option.isSome(own) || context.credentials._tag !== "PerService") return own
  return Option.fromNullable(context.credentials.callers.values().next().value)
}

/** The principal of a call that names no one: the server's own. */
export const SERVER_PRINCIPAL = "server"

/**
 * Who is calling, as audit lines and confirmation bindings name it: the
 * signed-in identity (`oauth:<name>`), else the caller's key id (`key:<id>`,
 * prefixed, so that no key id passes for the server), else `server`.
 */
export const principalOf = (context: CallContext): string => {
  if (Option.isSome(context.identity)) return `oauth:${context.identity.value.name}`
  return Option.match(namedCallerOf(context), {
    onNone: () => SERVER_PRINCIPAL,
    onSome: (caller) => `key:${caller.key}`,
  })
}

/**
 * The principal a sealed state is bound to: `principalOf`, and for an identity
 * its issuer and subject too, as a name alone (an email) may be reused or be
 * the same at two issuers.
 */
export const bindingPrincipalOf = (context: CallContext): string =>
  Option.match(context.identity, {
    onNone: () => principalOf(context),
    onSome: (identity) => `${principalOf(context)} ${JSON.stringify([identity.issuer, identity.subject])}`,
  })
