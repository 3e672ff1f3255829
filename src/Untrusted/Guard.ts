/**
 * The guard on changes that follow untrusted text. When a person has received
 * untrusted text (Answer.ts), their changes within the window that cannot be
 * undone (the table Untrusted/Hold.ts, widened or narrowed by SVC_GUARD_HOLD;
 * every change with SVC_GUARD=ask-all) are held: confirmed as SVC_CONFIRM
 * confirms them, the question saying what was read, or refused where the
 * client cannot be asked. The rest go through, and their audit lines say they
 * were guarded.
 *
 * The window is the person's, on every service (Caller.ts names them), and it
 * lasts as long as the text stays in the conversation: a session's whole life
 * (CONVERSATION_MS), and SVC_GUARD_WINDOW only where there is no session. It
 * lives in a `WindowStore`: process memory in this layer; a store shared by
 * replicas can stand in for it (`layerWith`; `layerConfig` takes the replicas'
 * shared store when one is provided).
 * Off when SVC_GUARD=off, or when this layer is not provided.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as GuardSettings from "../Settings/Guard.js"
import type { ConfigError } from "../Settings/Read.js"
import type { PatternClass } from "../Settings/ToolSettings.js"
import * as ExpiringMap from "../Shared/ExpiringMap.js"
import { wildcard } from "../Shared/Wildcard.js"
import { Store, type StoreShape } from "../Store/Store.js"
import { type Reason, ruleOf } from "./Hold.js"

/** What a caller last received within its window: what it was, in words, when, and when the window ends (epoch ms). */
export interface Window {
  readonly source: string
  readonly at: number
  readonly until: number
}

/**
 * How long a window lasts in a conversation the server can name (a 2025-era
 * client's session over HTTP, the stdio connection): the session's life, as
 * the text stays in the assistant's context until the conversation ends. A day,
 * a session's longest; each read renews it.
 */
export const CONVERSATION_MS = 86_400_000

/** Where the window is kept: who last received untrusted text, what it was, until when it counts. */
export interface WindowStore {
  /** `caller` received untrusted text (`source`, in words); it counts for `ttlMs`. */
  readonly mark: (caller: string, source: string, ttlMs: number) => Effect.Effect<void>
  /** What `caller` last received within its window, if anything. */
  readonly recent: (caller: string) => Effect.Effect<Option.Option<Window>>
}

/** Whether a change in the window is held, and the words that say why. */
export interface Decision {
  readonly held: boolean
  /** The table's reason, or the operator's setting that decided it. */
  readonly why: Reason | string
}

export interface GuardShape {
  /** How long a window lasts for a caller with no session (SVC_GUARD_WINDOW). */
  readonly windowMs: number
  /** How long it lasts in a session: its life (CONVERSATION_MS). */
  readonly conversationMs: number
  readonly store: WindowStore
  /**
   * Whether a change (`tool`, its selector, the endpoint it calls, the classes it is of, as
   * Tools/Catalog/Classes.ts says) made in a window is held.
   */
  readonly decide: (tool: string, selector: string, endpoint: string, classes?: ReadonlyArray<PatternClass>) => Decision
  /**
   * The SVC_GUARD_HOLD patterns with `@` that name the change, in order, before the first without
   * `@` that does: the first of them the change touches decides it (read by the caller), else `decide`.
   */
  readonly touching: (
    tool: string,
    selector: string,
    classes?: ReadonlyArray<PatternClass>,
  ) => ReadonlyArray<GuardSettings.HoldPattern>
}

/**
 * The decision of the settings: SVC_GUARD=ask-all holds all; else the first
 * SVC_GUARD_HOLD pattern that matches; else the table. A change the table does
 * not know (none today; test/unit/Untrusted/Hold.test.ts) is held, the cautious side.
 */
const compiled = (settings: GuardSettings.GuardSettings) =>
  settings.hold.map((p) => ({ ...p, source: p, tool: wildcard(p.tool), selector: wildcard(p.selector) }))

/** The SVC_GUARD_HOLD patterns with `@` that name a change before the first without `@` does (none with ask-all). */
export const toucher = (settings: GuardSettings.GuardSettings) => {
  const patterns = compiled(settings)
  return (
    tool: string,
    selector: string,
    classes: ReadonlyArray<PatternClass> = [],
  ): ReadonlyArray<GuardSettings.HoldPattern> => {
    if (settings.mode === "ask-all") return []
    const named = patterns.filter((p) =>
      p.class !== undefined ? classes.includes(p.class) : p.tool.test(tool) && p.selector.test(selector),
    )
    const plain = named.findIndex((p) => p.touches === undefined)
    return (plain < 0 ? named : named.slice(0, plain)).filter((p) => p.touches !== undefined).map((p) => p.source)
  }
}

export const decider = (settings: GuardSettings.GuardSettings) => {
  // A pattern with `@` decides only once what the change touches is read (`toucher`).
  const patterns = compiled(settings).filter((p) => p.touches === undefined)
  return (tool: string, selector: string, endpoint: string, classes: ReadonlyArray<PatternClass> = []): Decision => {
    if (settings.mode === "ask-all") return { held: true, why: "SVC_GUARD=ask-all" }
    const pattern = patterns.find((p) =>
      p.class !== undefined ? classes.includes(p.class) : p.tool.test(tool) && p.selector.test(selector),
    )
    if (pattern !== undefined) return { held: pattern.held, why: `SVC_GUARD_HOLD (${pattern.text})` }
    const rule = ruleOf(tool, endpoint)
    return rule === undefined ? { held: true, why: "changes something" } : { held: rule.held, why: rule.reason }
  }
}

/**
 * The guard when it is on, with its window; None when it is off (SVC_GUARD=off,
 * or `layerOff`, what the bundles provide when no guard is provided beneath them).
 */
export class Guard extends Context.Tag("svc-mcp/Guard")<Guard, Option.Option<GuardShape>>() {}

/**
 * The most callers kept: beyond it the oldest reading is forgotten first, so that
 * no flood of sessions grows the memory without bound.
 */
const MOST_CALLERS = 100_000

/** The window in this process's memory: one map, in the order of the last reading. */
export const memoryStore: Effect.Effect<WindowStore> = Effect.sync(() => {
  const windows = ExpiringMap.make<string, Window>({ ttlMs: CONVERSATION_MS, most: MOST_CALLERS })
  return {
    mark: (caller, source, ttlMs) =>
      Effect.map(Clock.currentTimeMillis, (now) =>
        windows.set(caller, { source, at: now, until: now + ttlMs }, now, ttlMs),
      ),
    recent: (caller) => Effect.map(Clock.currentTimeMillis, (now) => Option.fromNullable(windows.get(caller, now))),
  }
})

/** A window as the shared store keeps it; None for anything else. */
const fromShared = (text: string): Option.Option<Window> => {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === "object" && parsed !== null) {
      const { s, u, a } = parsed as { s?: unknown; u?: unknown; a?: unknown }
      if (typeof s === "string" && typeof u === "number" && typeof a === "number") {
        return Option.some({ source: s, at: a, until: u })
      }
    }
  } catch {}
  return Option.none()
}

/** Where a caller's window is in the shared store (under the store's own prefix). */
const sharedKey = (caller: string) => `guard:${caller}`

/**
 * The window in the replicas' shared store (SVC_MCP_STORE), so that a read on
 * one replica guards the changes sent to another; and in this process's memory
 * too, which answers when the store does not (a replica then still guards
 * after what it served itself).
 */
export const sharedStore = (shared: StoreShape): Effect.Effect<WindowStore> =>
  Effect.map(memoryStore, (local) => ({
    mark: (caller, source, ttlMs) =>
      Effect.zipRight(
        local.mark(caller, source, ttlMs),
        Clock.currentTimeMillis
          .pipe(
            Effect.flatMap((now) =>
              shared.set(sharedKey(caller), JSON.stringify({ s: source, a: now, u: now + ttlMs }), ttlMs),
            ),
          )
          .pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`SVC_GUARD: the shared store did not record a read (${error.detail})`),
            ),
          ),
      ),
    recent: (caller) =>
      shared.get(sharedKey(caller)).pipe(
        Effect.catchAll(() => Effect.succeed(Option.none<string>())),
        Effect.flatMap((found) => {
          const window = Option.flatMap(found, fromShared)
          return Option.isSome(window) ? Effect.succeed(window) : local.recent(caller)
        }),
      ),
  }))

/** The guard of these settings with the window in `store`. */
const makeWith = (settings: GuardSettings.GuardSettings, store: Effect.Effect<WindowStore>) =>
  settings.mode === "off"
    ? Effect.succeed(Option.none())
    : Effect.map(store, (windows) =>
        Option.some({
          windowMs: settings.windowMs,
          conversationMs: CONVERSATION_MS,
          store: windows,
          decide: decider(settings),
          touching: toucher(settings),
        }),
      )

/** The guard with the window in `store`. */
export const layerWith = (
  settings: GuardSettings.GuardSettings,
  store: Effect.Effect<WindowStore>,
): Layer.Layer<Guard> => Layer.effect(Guard, makeWith(settings, store))

/** The guard as given, its window in memory. */
export const layer = (settings: GuardSettings.GuardSettings): Layer.Layer<Guard> => layerWith(settings, memoryStore)

/**
 * The guard as SVC_GUARD and SVC_GUARD_WINDOW say, its window in the shared
 * store when one is provided beneath (Store), else in memory.
 */
export const makeConfig: Effect.Effect<Option.Option<GuardShape>, ConfigError, Store> = Effect.gen(function* () {
  const settings = yield* GuardSettings.load
  const store = yield* Store
  return yield* makeWith(settings, Option.match(store, { onNone: () => memoryStore, onSome: sharedStore }))
})

/** `makeConfig` as a layer. */
export const layerConfig: Layer.Layer<Guard, ConfigError, Store> = Layer.effect(Guard, makeConfig)

export const layerOff: Layer.Layer<Guard> = Layer.succeed(Guard, Option.none())

/**
 * Whose window a change falls in, in words for the start line and `svc-mcp
 * check`; `shared` is true where callers can be known only by their address
 * (a 2026-07-28 client over HTTP, with the server's own credentials, no sign-in).
 */
export const whoseWindow = (
  settings: GuardSettings.GuardSettings,
  serving: { readonly http: boolean; readonly signIn: boolean; readonly perRequest: boolean },
): { readonly words: string; readonly shared: boolean } => {
  if (settings.mode === "off")
    return { words: "SVC_GUARD=off: changes after untrusted text are not held", shared: false }
  const holds =
    settings.mode === "ask-all"
      ? "every change after untrusted text is held (SVC_GUARD=ask-all)"
      : `changes after untrusted text that cannot be undone are held${settings.hold.length > 0 ? " (with SVC_GUARD_HOLD)" : ""}`
  const lasts = `: in a 2025-era session for the session's life, else for SVC_GUARD_WINDOW (${windowWords(settings.windowMs)})`
  if (!serving.http) return { words: `${holds}; the window is the stdio connection's, for its life`, shared: false }
  if (serving.signIn)
    return { words: `${holds}; the window is the signed-in person's, on every service${lasts}`, shared: false }
  if (serving.perRequest)
    return {
      words: `${holds}; the window is that of the service keys a request brings, on every service${lasts}`,
      shared: false,
    }
  return {
    words: `${holds}; each 2025-era client's window is its session's, for its life, but a 2026-07-28 client with the shared credentials is known only by its address: clients behind one address share a window, for SVC_GUARD_WINDOW (${windowWords(settings.windowMs)}) (sign-in or per-request keys tell them apart)`,
    shared: true,
  }
}

/** A window's length as the settings write it: 10m, 90s, 1h. */
const windowWords = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`
