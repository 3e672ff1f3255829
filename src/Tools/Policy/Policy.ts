/**
 * What the assistant may call: the mode's tools, narrowed by SVC_ALLOW and
 * SVC_DENY. Denied selectors leave the published enums; a call naming one
 * anyway is refused before anything is sent.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Naming } from "../../Settings/Naming.js"
import { ConfigError } from "../../Settings/Read.js"
import {
  type Mode,
  type Pattern,
  type Reach,
  ServerSettings,
  type ServerSettingsShape,
} from "../../Settings/ToolSettings.js"
import { closest } from "../../Shared/Closest.js"
import { isObject } from "../../Shared/JsonShape.js"
import { wildcard } from "../../Shared/Wildcard.js"
import * as Classes from "../Catalog/Classes.js"
import * as Definitions from "../Catalog/Definitions.js"
import { make as makeTool, pathOf, type Tier, type Tool } from "../Catalog/Tool.js"
import { ToolDeniedError, UnknownToolError } from "../Catalog/ToolError.js"
import { ACCESS_ENDPOINTS, accessWords } from "./AccessEndpoints.js"

export const TIERS: Readonly<Record<Mode, ReadonlyArray<Tier>>> = {
  "read-only": ["read"],
  operate: ["read", "operate"],
  full: ["read", "operate", "write"],
}

export interface PolicyShape {
  /** The tools as published: only the allowed ones, each with only its allowed selectors. */
  readonly tools: ReadonlyArray<Tool>
  /** The published tool for a call, or why there is none: no such tool, or the call is refused. */
  readonly authorize: (name: string, args: unknown) => Either.Either<Tool, UnknownToolError | ToolDeniedError>
  /** The SVC_CONFIRM pattern that makes this call need the user's confirmation, if any. */
  readonly confirmation: (tool: Tool, selector: string) => Pattern | undefined
  /**
   * Every SVC_CONFIRM pattern whose part before `@` names this call, in order (and SVC_REVEAL_SECRETS'
   * own): one without `@` asks as it is; one with it asks when the call touches what it names.
   */
  readonly confirming: (tool: Tool, selector: string) => ReadonlyArray<Pattern>
  /**
   * What is decided at call time, from what the call touches (tools/list cannot depend on it): the
   * SVC_DENY patterns with `@` that name the call, and, where only SVC_ALLOW patterns with `@` admit
   * it, those (the call is admitted when it touches what one names).
   */
  readonly atCall: (tool: Tool, selector: string) => AtCall
  /** One line for the log: the mode and what the patterns left. */
  readonly summary: string
}

/** The patterns a call is checked against once what it touches is read. */
export interface AtCall {
  readonly deny: ReadonlyArray<Pattern>
  /** Undefined: admitted whatever it touches. */
  readonly allowOnly: ReadonlyArray<Pattern> | undefined
}

const NOTHING_AT_CALL: AtCall = { deny: [], allowOnly: undefined }

export class Policy extends Context.Tag("svc-mcp/Policy")<Policy, PolicyShape>() {}

/**
 * The endpoints whose answer holds a secret the service shows this once, and what it is: while
 * secrets are withheld (SVC_REVEAL_SECRETS), the user is asked first, and told it will not be shown.
 */
export const SHOWN_ONCE: Readonly<Record<string, string>> = {
  CreateApiKeyForServiceUser: "the new key's secret",
  CreateOnboardingKey: "the new onboarding key's private key",
}

const shownOnce = (tool: Tool, selector: string): Pattern | undefined => {
  const endpoint = tool.endpoints[selector]
  if (endpoint === undefined || SHOWN_ONCE[endpoint] === undefined) return undefined
  const exactly = (text: string) => new RegExp(`^${text}$`)
  return {
    variable: "SVC_REVEAL_SECRETS",
    text: `${tool.name}:${selector}`,
    tool: exactly(tool.name),
    selector: exactly(selector),
  }
}

/**
 * Whether the part of `pattern` before any `@` takes this call: a class by its members,
 * `tool:selector` by its wildcards, `*` alone any change.
 */
export const matches = (pattern: Pattern, tool: Tool, selector: string): boolean =>
  pattern.class !== undefined
    ? Classes.holds(pattern.class, tool.name, selector)
    : pattern.tool.test(tool.name) &&
      pattern.selector.test(selector) &&
      (pattern.changes !== true || tool.group !== "read")

/** A pattern that matches nothing: a typo that would silently allow or deny nothing. */
const matchless = (patterns: ReadonlyArray<Pattern>, all: ReadonlyArray<Tool>) =>
  patterns.find(
    (pattern) =>
      pattern.class === undefined &&
      !all.some((tool) => tool.selectors.some((selector) => matches(pattern, tool, selector))),
  )

/** What a pattern that matches nothing was likely meant to be: the nearest tool, or selector of the tools it names. */
export const guessOf = (text: string, all: ReadonlyArray<Tool>): string => {
  const [toolPart = "", selectorPart = ""] = text.split(":")
  const named = all.filter((tool) => wildcard(toolPart).test(tool.name))
  if (named.length === 0) {
    const tool = closest(
      toolPart,
      all.map((t) => t.name),
    )
    return tool === undefined
      ? `no tool is named so; the tools are ${all.map((t) => t.name).join(", ")}`
      : `did you mean ${tool}:${selectorPart}?`
  }
  const selectors = named.flatMap((tool) => tool.selectors.map((selector) => `${tool.name}:${selector}`))
  const guess = closest(
    selectorPart,
    named.flatMap((tool) => tool.selectors),
  )
  const owner = named.find((tool) => guess !== undefined && tool.selectors.includes(guess))
  return owner !== undefined && guess !== undefined
    ? `did you mean ${owner.name}:${guess}?`
    : `${toolPart}'s selectors are ${selectors.map((s) => s.slice(s.indexOf(":") + 1)).join(", ")}`
}

const typoError = (typo: Pattern, all: ReadonlyArray<Tool>, variable: (name: string) => string) =>
  new ConfigError({
    variable: variable(typo.variable),
    problem: `has the pattern ${JSON.stringify(typo.text)}, which matches no tool:selector; ${guessOf(typo.text, all)}`,
    hint: "check its spelling: * matches any run of characters, anywhere; the class destructive takes every call that removes or stops something",
  })

/** The patterns that ask or refuse by what a call touches (`@`): which name a call, decided once it is read. */
const targeted = (
  settings: Pick<ServerSettingsShape, "allow" | "deny"> &
    Partial<Pick<ServerSettingsShape, "confirm" | "revealSecrets">>,
): Pick<PolicyShape, "confirming" | "atCall"> => {
  const confirm = settings.confirm ?? []
  const allow = Option.getOrElse(settings.allow, (): ReadonlyArray<Pattern> => [])
  const any = [...settings.deny, ...allow].some((p) => p.touches !== undefined)
  return {
    confirming: (tool, selector) => {
      const named = confirm.filter((p) => matches(p, tool, selector))
      const secret = settings.revealSecrets === true ? undefined : shownOnce(tool, selector)
      return secret === undefined ? named : [...named, secret]
    },
    atCall: (tool, selector) => {
      if (!any) return NOTHING_AT_CALL
      const deny = settings.deny.filter((p) => p.touches !== undefined && matches(p, tool, selector))
      const admitting = allow.filter((p) => matches(p, tool, selector))
      const allowOnly = admitting.length > 0 && admitting.every((p) => p.touches !== undefined) ? admitting : undefined
      return deny.length === 0 && allowOnly === undefined ? NOTHING_AT_CALL : { deny, allowOnly }
    },
  }
}

/** The tools as published: each with the selectors nothing refuses, and none left where it refuses them all. */
const publishedOf = (
  all: ReadonlyArray<Tool>,
  refusal: (tool: Tool, selector: string) => string | undefined,
): Map<string, Tool> => {
  const published = new Map<string, Tool>()
  for (const tool of all) {
    const endpoints = Object.fromEntries(
      Object.entries(tool.endpoints).filter(([selector]) => refusal(tool, selector) === undefined),
    )
    if (Object.keys(endpoints).length === 0) continue
    published.set(
      tool.name,
      Object.keys(endpoints).length === tool.selectors.length ? tool : makeTool({ ...tool, endpoints }),
    )
  }
  return published
}

export const make = (
  settings: Pick<ServerSettingsShape, "mode" | "allow" | "deny"> &
    Partial<Pick<ServerSettingsShape, "confirm" | "revealSecrets" | "accessChanges">>,
  all: ReadonlyArray<Tool> = Definitions.all,
): Effect.Effect<PolicyShape, ConfigError> =>
  Effect.gen(function* () {
    const confirm = settings.confirm ?? []
    // Among several services, refusals and reasons name the service's own variables (SVC_STAGING_MODE).
    const { variable } = yield* Naming
    const patterns = [...Option.getOrElse(settings.allow, () => []), ...settings.deny, ...confirm]
    const typo = matchless(patterns, all)
    if (typo !== undefined) return yield* Effect.fail(typoError(typo, all, variable))
    const tiers = TIERS[settings.mode]
    const access = accessWords(settings, variable)
    const refusal = (tool: Tool, selector: string): string | undefined => {
      if (!tiers.includes(tool.tier)) {
        return `the server runs in ${settings.mode} mode (${variable("SVC_MODE")}), which does not offer ${tool.name}`
      }
      const changes = access === undefined ? undefined : ACCESS_ENDPOINTS[tool.endpoints[selector] ?? ""]
      if (changes !== undefined) return `it ${changes}: ${access}`
      // A pattern with `@` needs what the call touches: it is decided at call time (`atCall`).
      const denied = settings.deny.find((p) => p.touches === undefined && matches(p, tool, selector))
      if (denied !== undefined) return `denied by ${variable("SVC_DENY")} (${denied.text})`
      if (Option.isSome(settings.allow) && !settings.allow.value.some((p) => matches(p, tool, selector))) {
        return `not admitted by ${variable("SVC_ALLOW")}`
      }
      return undefined
    }
    const published = publishedOf(all, refusal)
    const byName = new Map(all.map((tool) => [tool.name, tool]))
    const names = [...published.keys()]
    const authorize = (name: string, args: unknown): Either.Either<Tool, UnknownToolError | ToolDeniedError> => {
      const tool = byName.get(name)
      if (tool === undefined) return Either.left(new UnknownToolError({ name, tools: names }))
      const allowed = published.get(name)
      const selector = isObject(args) ? args[tool.selectorKey] : undefined
      // An unknown or missing selector is left to the decoder, which lists the allowed ones.
      if (typeof selector === "string" && Object.hasOwn(tool.endpoints, selector)) {
        const endpoint = pathOf(tool, selector)
        const reason = refusal(tool, selector)
        if (reason !== undefined) return Either.left(new ToolDeniedError({ tool: name, selector, endpoint, reason }))
      }
      return allowed === undefined
        ? Either.left(new ToolDeniedError({ tool: name, reason: refusal(tool, tool.selectors[0] ?? "") ?? "" }))
        : Either.right(allowed)
    }
    const selectors = [...published.values()].reduce((n, tool) => n + tool.selectors.length, 0)
    const summary = `mode ${settings.mode}: ${published.size} tools, ${selectors} selectors${
      patterns.length === 0 ? "" : ` (${patterns.map((p) => `${variable(p.variable)}=${p.text}`).join(", ")})`
    }`
    const confirmation = (tool: Tool, selector: string) =>
      confirm.find((p) => matches(p, tool, selector)) ??
      (settings.revealSecrets === true ? undefined : shownOnce(tool, selector))
    return { tools: [...published.values()], authorize, confirmation, ...targeted(settings), summary }
  })

/**
 * The tools SVC_REACH gives: the interface's, or every endpoint of the service's
 * client, whose tables are imported only then (a start with the default reach loads none of them).
 */
export const toolsOf = (reach: Reach): Effect.Effect<ReadonlyArray<Tool>> =>
  reach === "all"
    ? Effect.promise(() => import("./Reach.js")).pipe(Effect.map((module) => module.all))
    : Effect.succeed(Definitions.all)

/** The policy of the settings provided beneath. */
export const ofSettings: Effect.Effect<PolicyShape, ConfigError, ServerSettings> = Effect.flatMap(
  ServerSettings,
  (settings) => Effect.flatMap(toolsOf(settings.reach), (tools) => make(settings, tools)),
)

export const layer: Layer.Layer<Policy, ConfigError, ServerSettings> = Layer.effect(Policy, ofSettings)
