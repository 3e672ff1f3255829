/**
 * SVC_MCP_MINT_LIFETIME: how long a key minted for a signed-in person lives
 * at the service (Mint/). It is replaced after half of it, so no call meets
 * an expired key; a short one shortens how long a leaked key is worth having.
 *
 * SVC_MCP_MINT_NEW_PER_MINUTE: how many people new to the service (no service
 * user of theirs yet) one process mints for in a minute. A `*` entry admits
 * anyone the issuer signs in, and each costs a service user that stays: past
 * the bound a first call is refused (503, try again) rather than filling the
 * service with users.
 */

import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import { type ConfigError, duration, positive, read } from "./Read.js"
import * as Setting from "./Setting.js"

/** The default: a week. */
const LIFETIME_MS = 7 * 24 * 3_600_000
/** The default: new people a minute, per process. */
const NEW_PER_MINUTE = 30

export interface MintSettingsShape {
  readonly lifetimeMs: number
  /** The most people new to the service a process mints for in a minute. */
  readonly newPerMinute: number
}

const DEFAULT: MintSettingsShape = { lifetimeMs: LIFETIME_MS, newPerMinute: NEW_PER_MINUTE }

/** The minted keys' settings; by default a week's lifetime. */
export class MintSettings extends Context.Reference<MintSettings>()("svc-mcp/MintSettings", {
  defaultValue: (): MintSettingsShape => DEFAULT,
}) {}

// At least 10 s, so that a key outlives the call it is minted for; at most a year.
const lifetime = duration("SVC_MCP_MINT_LIFETIME", LIFETIME_MS, 10_000, 365 * 24 * 3_600_000)

const newPerMinute = positive("SVC_MCP_MINT_NEW_PER_MINUTE", NEW_PER_MINUTE, "people a minute", 10)

export const load: Effect.Effect<MintSettingsShape, ConfigError> = read(
  Setting.zipWith(lifetime, newPerMinute, (lifetimeMs, newPerMinute) => ({ lifetimeMs, newPerMinute })),
)

/** The settings as SVC_MCP_MINT_LIFETIME says when sign-in is on (`on`); else those provided, by default a week. */
export const loadWhen = (on: boolean): Effect.Effect<MintSettingsShape, ConfigError> => (on ? load : MintSettings)
