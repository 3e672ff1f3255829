/**
 * The three scopes and what each allows: `svc.read` the read tools,
 * `svc.operate` the executions too, `svc.write` everything. A broader scope
 * includes the narrower ones (2026-07-28 requires servers to honour the
 * hierarchy), so a call needs one scope: the narrowest that covers its tool's
 * tier, or any broader one. The scopes cap what a call may do on top of
 * SVC_MODE, SVC_ALLOW and SVC_DENY, which still apply after them.
 */
import type { Tier } from "../Tools/Catalog/Tool.js"

export const NAMES = ["svc.read", "svc.operate", "svc.write"] as const

const RANK: Readonly<Record<Tier, number>> = { read: 0, operate: 1, write: 2 }

export interface Scopes {
  /** The scope names as the identity provider issues them (prefix applied), narrowest first. */
  readonly all: ReadonlyArray<string>
  /** The narrowest scope that allows a tool of this tier. */
  readonly needed: (tier: Tier) => string
  /** Whether a token with these scopes may call a tool of this tier. */
  readonly allows: (granted: ReadonlyArray<string>, tier: Tier) => boolean
}

export const make = (prefix: string): Scopes => {
  const all = NAMES.map((name) => `${prefix}${name}`)
  const rankOf = (scope: string) => all.indexOf(scope)
  return {
    all,
    needed: (tier) => all[RANK[tier]] as string,
    allows: (granted, tier) => granted.some((scope) => rankOf(scope) >= RANK[tier]),
  }
}
