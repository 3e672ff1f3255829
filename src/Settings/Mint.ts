/**
 * SVC_MCP_MINT_LIFETIME: how long a key minted for a signed-in person lives
 * at the service (Mint/). It is replaced after half of it, so no call meets
 * an expired key; a short one shortens how long a leaked key is worth having.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import { type ConfigError, duration, read } from "./Read.js"

/** The default: a week. */
const LIFETIME_MS = 7 * 24 * 3_600_000

export interface MintSettingsShape {
  readonly lifetimeMs: number
}

const DEFAULT: MintSettingsShape = { lifetimeMs: LIFETIME_MS }

/** The minted keys' settings; by default a week's lifetime. */
export class MintSettings extends Context.Reference<MintSettings>()("svc-mcp/MintSettings", {
  defaultValue: (): MintSettingsShape => DEFAULT,
}) {}

// At least 10 s, so that a key outlives the call it is minted for; at most a year.
const lifetime = duration("SVC_MCP_MINT_LIFETIME", LIFETIME_MS, 10_000, 365 * 24 * 3_600_000)

export const load: Effect.Effect<MintSettingsShape, ConfigError> = read(
  Config.map(lifetime, (lifetimeMs) => ({ lifetimeMs })),
)

/** The settings as SVC_MCP_MINT_LIFETIME says when sign-in is on (`on`); else those provided, by default a week. */
export const loadWhen = (on: boolean): Effect.Effect<MintSettingsShape, ConfigError> => (on ? load : MintSettings)
