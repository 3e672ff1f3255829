/**
 * The store's connection: what it says of itself (up or not, and why),
 * logged on each change only; its first connection, waited on a while at
 * start; and its close with the scope. The commands (Redis.ts) read the same
 * state: a failed one names the last error, and through Sentinel an answer
 * says the primary is back.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Settings from "../Settings/Store.js"
import * as Runner from "../Shared/Runner.js"
import * as Clients from "./Clients.js"
import { backoff, type Client, type Cluster, CONNECT_TIMEOUT_MS, type Single, START_WAIT_MS } from "./Clients.js"

/** The part of a failure that may be shown: node-redis's messages name the command, never its arguments. */
export const detailOf = (error: unknown): string => {
  const text = error instanceof Error ? error.message : String(error)
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}

export class Connection {
  /** Undefined before the first connection: the start reports that one, once. */
  up: boolean | undefined = undefined
  lastError = "not connected yet"
  closed = false
  readonly client: Client
  readonly cluster: Cluster | undefined
  readonly sentinel: Clients.Sentinel | undefined
  readonly single: Single | undefined

  constructor(
    clients: ReturnType<typeof Clients.make>,
    readonly where: string,
    readonly log: (effect: Effect.Effect<void>) => void,
  ) {
    this.client = clients.client
    this.cluster = clients.cluster
    this.sentinel = clients.sentinel
    this.single = clients.single
  }

  send(key: string | undefined, args: ReadonlyArray<string>, signal: AbortSignal): Promise<unknown> {
    const { cluster, sentinel } = this
    return cluster !== undefined
      ? cluster.sendCommand(key, false, args)
      : sentinel !== undefined
        ? // Closed between two attempts to reach the Sentinels: nothing to send to.
          sentinel.isOpen
          ? sentinel.sendCommand(false, args, { abortSignal: signal })
          : Promise.reject(new Error(`no Sentinel answers (${this.lastError})`))
        : (this.single as Single).sendCommand(args, { abortSignal: signal })
  }

  /** Through the typed command, the one the client's copy of read keys answers. */
  read(key: string): Promise<unknown> {
    const { cluster, sentinel } = this
    return sentinel !== undefined && !sentinel.isOpen
      ? Promise.reject(new Error(`no Sentinel answers (${this.lastError})`))
      : (cluster ?? sentinel ?? (this.single as Single)).get(key)
  }

  unreachable(error: unknown): void {
    this.lastError = detailOf(error)
    if (this.up === true) {
      this.up = false
      this.log(
        Effect.logWarning(
          `the shared store at ${this.where} is unreachable (${this.lastError}): confirmations are refused and refused keys are remembered per process until it answers; reconnecting`,
        ),
      )
    }
  }

  /** A command had no answer within its time-out while the connection stays open: the store has stalled. */
  stalled(detail: string): void {
    this.lastError = detail
    if (this.up === true) {
      this.up = false
      this.log(
        Effect.logWarning(
          `the shared store at ${this.where} does not answer (${detail}): it has stalled; confirmations are refused, refused keys are remembered per process and only keys already held are used until it answers`,
        ),
      )
    }
  }

  answers(): void {
    if (this.up !== true) {
      if (this.up === false) this.log(Effect.logInfo(`the shared store at ${this.where} answers again`))
      this.up = true
    }
  }
}

/** The client's events, told to the connection's state. */
const watch = (connection: Connection): void => {
  const { client, cluster, sentinel } = connection
  if (sentinel === undefined) client.on("error", (error) => connection.unreachable(error))
  else {
    // Only the primary's connection failing makes the store unreachable: a Sentinel that does not
    // answer while the primary does is passed over for another. node-redis names the connection an
    // error came from (passthroughClientErrorEvents); its "client-error" events do not reach here.
    client.on("error", (error) => {
      if (error instanceof Error && error.message.startsWith("Master Client (")) connection.unreachable(error)
      else connection.lastError = detailOf(error)
    })
  }
  client.on(cluster === undefined ? "ready" : "connect", () => connection.answers())
  if (sentinel !== undefined) {
    client.on("topology-change", (event) => {
      const change = event as { type?: string; node?: { host: string; port: number } } | undefined
      if (change?.type === "MASTER_CHANGE" && change.node !== undefined) {
        connection.log(
          Effect.logInfo(`the shared store's primary is ${change.node.host}:${change.node.port} (through Sentinel)`),
        )
      }
    })
  }
}

/**
 * Without a first connection a client's connect() keeps trying as reconnections do; a cluster's
 * (and Sentinel's, once it has asked each Sentinel 16 times) fails, and is tried again here with
 * the same backoff. Its promise is not awaited past the start's wait.
 */
const connectRetrying = (connection: Connection, retries: number): Promise<boolean> =>
  connection.client.connect().then(
    () => true,
    (error: unknown) => {
      connection.lastError = detailOf(error)
      return connection.closed
        ? false
        : new Promise<void>((resolve) => setTimeout(resolve, backoff(retries))).then(() =>
            connection.closed ? false : connectRetrying(connection, retries + 1),
          )
    },
  )

/** Closed with the scope. */
const close = (connection: Connection): Effect.Effect<unknown> =>
  connection.sentinel === undefined
    ? Effect.sync(() => {
        connection.closed = true
        connection.client.destroy()
      })
    : // A Sentinel client's destroy waits for a rediscovery under way (Sentinels that do not answer
      // can hold it for seconds), then closes every connection: a close waits for it a while, no more.
      Effect.promise(() => {
        connection.closed = true
        return (connection.sentinel as Clients.Sentinel).destroy().catch(() => undefined)
      }).pipe(Effect.timeoutOption(CONNECT_TIMEOUT_MS))

/** The connection of these settings, opened in the background: the server starts whether it answers or not. */
export const open = (
  redis: typeof import("redis"),
  settings: Settings.StoreSettings,
): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runner = yield* Runner.current
    const clients = Clients.make(redis, settings)
    const connection = new Connection(clients, settings.where, runner.fork)
    watch(connection)
    const connecting =
      clients.cluster === undefined && clients.sentinel === undefined
        ? connection.client.connect().then(
            () => true,
            () => false,
          )
        : connectRetrying(connection, 0)
    yield* Effect.addFinalizer(() => close(connection))
    const connected = yield* Effect.promise(() => connecting).pipe(
      Effect.timeoutTo({ duration: START_WAIT_MS, onTimeout: () => false, onSuccess: (ok) => ok }),
    )
    if (connected) {
      connection.up = true
      yield* Effect.logInfo(`the shared store at ${settings.where} answers (key prefix ${settings.prefix})`)
    } else if (connection.up !== true) {
      connection.up = false
      yield* Effect.logWarning(
        `the shared store at ${settings.where} is unreachable at start (${connection.lastError}): confirmations are refused until it answers; reconnecting`,
      )
    }
    return connection
  })
