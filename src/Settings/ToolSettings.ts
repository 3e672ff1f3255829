/**
 * The tool policy's settings: which tools and selectors the assistant may use,
 * which calls the user confirms, how long a wait lasts, how long an answer may
 * be, whether secrets are shown, and how much of the service the tools reach.
 */

import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { closest } from "../Shared/Closest.js"
import { wildcard } from "../Shared/Wildcard.js"
import {
  type ConfigError,
  commaList,
  duration,
  optional,
  optionalWith,
  pickOne,
  positive,
  read,
  refuse,
} from "./Read.js"
import * as Setting from "./Setting.js"
import * as Touches from "./Touches.js"

/** Which tools an assistant may use: `read-only` (the reading tools), `operate` (and svc_execute), `full` (all). */
export type Mode = "read-only" | "operate" | "full"

export const MODES: ReadonlyArray<Mode> = ["read-only", "operate", "full"]

/**
 * What the 13 tools reach: `interface` (the default), the selectors interface.md gives;
 * `all`, every `read/`, `write/` and `execute/` endpoint of the service's client.
 */
export type Reach = "interface" | "all"

const REACHES: ReadonlyArray<Reach> = ["interface", "all"]

/**
 * SVC_ACCESS_CHANGES: whether the assistant may change who may do what (users, user groups,
 * permissions, API keys, service users), directly or through a sync. Unset, the mode decides
 * (`accessDenied`).
 */
export type AccessChanges = "deny" | "allow"

const ACCESS_CHANGES: ReadonlyArray<AccessChanges> = ["deny", "allow"]

/**
 * The named classes a pattern setting may give in place of `tool:selector`: `destructive`, every
 * call that removes or stops something (Tools/Catalog/Classes.ts says which).
 */
export const CLASSES = ["destructive"] as const

export type PatternClass = (typeof CLASSES)[number]

/** One item of a pattern setting, read: a class, or a `tool:selector` whose `*` matches any run. */
export type PatternItem =
  | { readonly class: PatternClass }
  | { readonly class?: undefined; readonly tool: string; readonly selector: string }

/** How a pattern setting is written, for its refusals. */
export const PATTERN_HINT =
  "write comma-separated tool:selector patterns, * matching any run of characters anywhere in either part, or the class destructive, e.g. destructive,svc_execute:deploy_*"

/**
 * One item of SVC_ALLOW, SVC_DENY, SVC_CONFIRM or SVC_GUARD_HOLD: a word alone is a class, a
 * `:` makes it `tool:selector`. (A part naming what is touched, after an `@`, belongs to the item
 * as a whole; the class or `tool:selector` is what stands before it.)
 */
export const parseItem = (item: string, shown: string = item): Either.Either<PatternItem, string> => {
  const pair = /^([A-Za-z0-9_*]+):([A-Za-z0-9_*]+)$/.exec(item)
  if (pair !== null) return Either.right({ tool: pair[1] as string, selector: pair[2] as string })
  if ((CLASSES as ReadonlyArray<string>).includes(item)) return Either.right({ class: item as PatternClass })
  const guess = item.includes(":") ? undefined : closest(item, CLASSES)
  return Either.left(
    `has the pattern ${JSON.stringify(shown.slice(0, 80))}, which is neither tool:selector nor a class (${CLASSES.join(", ")})${
      guess === undefined ? "" : `; did you mean ${guess}?`
    }`,
  )
}

/**
 * A pattern of SVC_ALLOW, SVC_DENY or SVC_CONFIRM: a class, or `tool:selector` where `*` matches
 * any run of characters. (SVC_REVEAL_SECRETS: the policy's own, asking before a secret the service
 * shows once is made.) A class's `tool` and `selector` match nothing: its members are the class's.
 */
export interface Pattern {
  readonly variable: "SVC_ALLOW" | "SVC_DENY" | "SVC_CONFIRM" | "SVC_REVEAL_SECRETS"
  readonly text: string
  readonly tool: RegExp
  readonly selector: RegExp
  /** `*` alone before any `@`: every change (no read). */
  readonly changes?: boolean
  /** What the call must touch, after `@` (Touches.ts): a tag, a resource by type and name, a server. */
  readonly touches?: Touches.Touch
  readonly class?: PatternClass
}

const NOTHING = /(?!)/

export interface ServerSettingsShape {
  readonly mode: Mode
  /** None: everything the mode lists is allowed. */
  readonly allow: Option.Option<ReadonlyArray<Pattern>>
  readonly deny: ReadonlyArray<Pattern>
  /** Calls the user must confirm before anything is sent. */
  readonly confirm: ReadonlyArray<Pattern>
  /** How long svc_execute with `wait` follows an Update before it gives up. */
  readonly waitTimeoutMs: number
  /**
   * How long between two reads of a followed Update. Not a variable: a second suits the service;
   * an embedder (or a test) may give another.
   */
  readonly waitPollMs: number
  /** The longest text a tool result may have. */
  readonly maxOutputChars: number
  /** Show credential fields and secret variables' values as the service sent them. */
  readonly revealSecrets: boolean
  /** SVC_LOG_TIMESTAMPS: svc_logs asks for each line's time where a call does not say. */
  readonly logTimestamps: boolean
  /**
   * SVC_MCP_SECRET_PAGE_LIFETIME: how long a page that hands a secret to the person stays open, in
   * ms (Confirmation/SecretPages.ts).
   */
  readonly secretPageMs: number
  /** SVC_REACH: the interface's selectors, or every endpoint of the service's client. */
  readonly reach: Reach
  /** SVC_ACCESS_CHANGES as set; none: the mode's default (`accessDenied`). */
  readonly accessChanges: Option.Option<AccessChanges>
}

export class ServerSettings extends Context.Tag("svc-mcp/ServerSettings")<ServerSettings, ServerSettingsShape>() {}

export const DEFAULT_SETTINGS: ServerSettingsShape = {
  mode: "full",
  allow: Option.none(),
  deny: [],
  confirm: [],
  waitTimeoutMs: 600_000,
  waitPollMs: 1_000,
  maxOutputChars: 50_000,
  revealSecrets: false,
  logTimestamps: false,
  secretPageMs: 600_000,
  reach: "interface",
  accessChanges: Option.none(),
}

/**
 * Whether changes of who may do what are kept from the assistant: as SVC_ACCESS_CHANGES says,
 * else in every mode but `full`, whose default keeps what the server offered before the setting.
 */
export const accessDenied = (settings: Pick<ServerSettingsShape, "mode" | "accessChanges">): boolean =>
  Option.match(settings.accessChanges, { onNone: () => settings.mode !== "full", onSome: (set) => set === "deny" })

const patterns = (variable: Pattern["variable"]) =>
  optionalWith(variable, (text) =>
    Either.all(
      commaList(text).map((item) => {
        const split = Touches.split(item)
        if (Either.isLeft(split)) {
          return Either.left(
            refuse(variable, `has the pattern ${JSON.stringify(item.slice(0, 80))}, which ${split.left}`, PATTERN_HINT),
          )
        }
        const { head, touch } = split.right
        const touches = touch === undefined ? {} : { touches: touch }
        // `*` alone: every change, whatever its tool (no read).
        if (head === "*") {
          return Either.right<Pattern>({
            variable,
            text: item,
            tool: wildcard("*"),
            selector: wildcard("*"),
            changes: true,
            ...touches,
          })
        }
        return Either.match(parseItem(head, item), {
          onLeft: (problem) => Either.left(refuse(variable, problem, PATTERN_HINT)),
          onRight: (read) =>
            Either.right<Pattern>(
              read.class !== undefined
                ? { variable, text: item, tool: NOTHING, selector: NOTHING, class: read.class, ...touches }
                : { variable, text: item, tool: wildcard(read.tool), selector: wildcard(read.selector), ...touches },
            ),
        })
      }),
    ),
  )

const boolean = (variable: string) =>
  optionalWith(variable, (value) =>
    pickOne(variable, ["true", "1", "yes", "false", "0", "no"], "false", "use true or false")(Option.some(value)),
  ).pipe(Setting.map(Option.match({ onNone: () => false, onSome: (text) => ["true", "1", "yes"].includes(text) })))

const settings: Setting.Setting<ServerSettingsShape> = Setting.all({
  mode: Setting.mapOrFail(
    optional("SVC_MODE"),
    pickOne("SVC_MODE", MODES, DEFAULT_SETTINGS.mode, `use one of ${MODES.join(", ")} (default full)`),
  ),
  allow: patterns("SVC_ALLOW"),
  deny: Setting.map(
    patterns("SVC_DENY"),
    Option.getOrElse(() => []),
  ),
  confirm: Setting.map(
    patterns("SVC_CONFIRM"),
    Option.getOrElse(() => []),
  ),
  waitTimeoutMs: positive("SVC_WAIT_TIMEOUT_MS", DEFAULT_SETTINGS.waitTimeoutMs, "milliseconds", 900_000),
  waitPollMs: Setting.succeed(DEFAULT_SETTINGS.waitPollMs),
  maxOutputChars: positive("SVC_MAX_OUTPUT_CHARS", DEFAULT_SETTINGS.maxOutputChars, "characters", 20_000),
  revealSecrets: boolean("SVC_REVEAL_SECRETS"),
  logTimestamps: boolean("SVC_LOG_TIMESTAMPS"),
  secretPageMs: duration("SVC_MCP_SECRET_PAGE_LIFETIME", DEFAULT_SETTINGS.secretPageMs, 30_000, 3_600_000),
  reach: Setting.mapOrFail(
    optional("SVC_REACH"),
    pickOne(
      "SVC_REACH",
      REACHES,
      DEFAULT_SETTINGS.reach,
      "use interface (the default: the selectors interface.md gives) or all (every endpoint of the service)",
    ),
  ),
  accessChanges: optionalWith("SVC_ACCESS_CHANGES", (text) =>
    pickOne(
      "SVC_ACCESS_CHANGES",
      ACCESS_CHANGES,
      "deny",
      "use deny (users, groups, permissions and keys are kept from the assistant) or allow; unset, only full mode allows them",
    )(Option.some(text)),
  ),
})

export const loadSettings: Effect.Effect<ServerSettingsShape, ConfigError> = read(settings)

export const layer: Layer.Layer<ServerSettings, ConfigError> = Layer.effect(ServerSettings, loadSettings)

export const layerValue = (settings: Partial<ServerSettingsShape> = {}): Layer.Layer<ServerSettings> =>
  Layer.succeed(ServerSettings, { ...DEFAULT_SETTINGS, ...settings })
