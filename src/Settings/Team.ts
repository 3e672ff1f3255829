/**
 * The settings of a server shared by a team: the key that seals confirmation
 * states (so that replicas behind a balancer accept each other's), and the
 * proxies whose X-Forwarded-For is believed.
 */

import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type Cidr, parse } from "../Shared/Cidr.js"
import { type ConfigError, commaList, duration, optionalWith, read, refuse, secret } from "./Read.js"
import * as Setting from "./Setting.js"

/** The shortest state key, in bytes: HMAC-SHA256's own strength. */
export const MIN_KEY_BYTES = 32

export interface TeamSettingsShape {
  /** The key confirmation states are sealed with; none: a random key per process. */
  readonly stateKey: Option.Option<Redacted.Redacted<Uint8Array>>
  /** Peers whose X-Forwarded-For names the caller. */
  readonly trustedProxies: ReadonlyArray<Cidr>
  /**
   * A question's lifetime (SVC_MCP_QUESTION_TIMEOUT): a 2026-07-28 confirmation answered later is
   * not honoured (the question is asked again), and its record in the store is gone by then.
   */
  readonly questionMs: number
}

/** SVC_MCP_QUESTION_TIMEOUT's default: 5 minutes. */
export const QUESTION_MS = 300_000

export const DEFAULT: TeamSettingsShape = { stateKey: Option.none(), trustedProxies: [], questionMs: QUESTION_MS }

/** A team's settings; by default none: no trusted proxies, and a state key of the process's own. */
export class TeamSettings extends Context.Reference<TeamSettings>()("svc-mcp/TeamSettings", {
  defaultValue: (): TeamSettingsShape => DEFAULT,
}) {}

const stateKey = Setting.mapOrFail(secret("SVC_MCP_STATE_KEY"), (given) => {
  if (Option.isNone(given)) return Either.right(Option.none())
  const bytes = Buffer.from(Redacted.value(given.value), "utf8")
  return bytes.length >= MIN_KEY_BYTES
    ? Either.right(Option.some(Redacted.make(new Uint8Array(bytes))))
    : Either.left(
        refuse(
          "SVC_MCP_STATE_KEY",
          `is ${bytes.length} bytes long, shorter than ${MIN_KEY_BYTES}`,
          "give at least 32 random bytes, e.g. the output of `openssl rand -base64 48`",
        ),
      )
})

const trustedProxies = optionalWith("SVC_MCP_TRUSTED_PROXIES", (text) => {
  const parsed = commaList(text).map(parse)
  const bad = parsed.find(Either.isLeft)
  return bad === undefined
    ? Either.right(parsed.flatMap((p) => (Either.isRight(p) ? [p.right] : [])))
    : Either.left(
        refuse(
          "SVC_MCP_TRUSTED_PROXIES",
          `holds ${bad.left}`,
          "give comma-separated addresses or CIDRs, e.g. SVC_MCP_TRUSTED_PROXIES=10.0.0.0/8,fd00::/8",
        ),
      )
}).pipe(Setting.map(Option.getOrElse((): ReadonlyArray<Cidr> => [])))

// Below the SDK's own 600 s round time-out, which would otherwise end a 2025-era question first.
const questionMs = duration("SVC_MCP_QUESTION_TIMEOUT", QUESTION_MS, 1_000, 540_000)

export const config: Setting.Setting<TeamSettingsShape> = Setting.all({ stateKey, trustedProxies, questionMs })

export const load: Effect.Effect<TeamSettingsShape, ConfigError> = read(config)

export const layer: Layer.Layer<TeamSettings, ConfigError> = Layer.effect(TeamSettings, load)

/** No trusted proxies, and a state key of the process's own: a server run by one, or embedded. */
export const layerDefaults: Layer.Layer<TeamSettings> = Layer.succeed(TeamSettings, DEFAULT)
