/**
 * The tool list a signed-in person sees: the tools their token's scopes reach
 * (a tool's tier, as the gate screens calls), and of those the selectors whose
 * endpoint their minted level reaches at the service (a `read/` endpoint needs
 * Read, `execute/` Execute, `write/` Write); a person whose calls carry a
 * minted key sees none of the selectors refused to them whatever their level
 * (AccessEndpoints.ts: those that change who may do what, and the runs that
 * cannot be read first). What is left out is what would be refused: by the
 * gate (403, step-up), by the policy or by the service.
 */
import type { Group } from "../../SvcClient.js"
import { make as makeTool, type Tier, type Tool } from "../../Tools/Catalog/Tool.js"
import { refusedToMinted } from "../../Tools/Policy/AccessEndpoints.js"

/**
 * How far a person reaches: the highest tool tier their scopes allow (-1: none), the highest
 * endpoint group their level allows, and whether their calls go as a minted service user, which
 * is never an admin (the creations the service reserves to admins are not theirs).
 */
export interface Reach {
  readonly tier: number
  readonly level: number
  readonly minted?: boolean
}

/**
 * The creations the service reserves to its admins (or to the base permissions to create servers
 * and builds, which a minted service user is never given): users, groups and their rights, the
 * variables, the accounts (service-notes-all.md), servers and builds.
 */
const ADMINS_ONLY: ReadonlySet<string> = new Set([
  "CreateVariable",
  "CreateUserGroup",
  "CreateGitProviderAccount",
  "CreateImageRegistryAccount",
  "CreateServer",
  "CreateBuild",
  "CopyServer",
  "CopyBuild",
  // SVC_REACH=all.
  "CreateLocalUser",
  "CreateServiceUser",
  "CreateApiKeyForServiceUser",
  "CreateOnboardingKey",
])

const LEVELS = ["Read", "Execute", "Write"] as const

export const TIER_RANK: Readonly<Record<Tier, number>> = { read: 0, operate: 1, write: 2 }
const GROUP_RANK: Readonly<Record<Group, number>> = { read: 0, execute: 1, write: 2 }
/** The service's levels, by the endpoint group each reaches. */
export const LEVEL_RANK: Readonly<Record<string, number>> = { Read: 0, Execute: 1, Write: 2 }

/** Everything: the reach of a request without sign-in, or of a person with every scope and their own key. */
export const FULL: Reach = { tier: 2, level: 2 }

/** The tools as `reach` leaves them, each with only the selectors it reaches; none left out, the same tools. */
export const narrowed = (tools: ReadonlyArray<Tool>, reach: Reach): ReadonlyArray<Tool> =>
  tools.flatMap((tool) => {
    if (TIER_RANK[tool.tier] > reach.tier) return []
    const endpoints = Object.fromEntries(
      Object.entries(tool.endpoints).filter(
        ([selector, endpoint]) =>
          beyondOf(tool, selector, reach) === undefined && !(reach.minted === true && refusedToMinted(endpoint)),
      ),
    )
    const kept = Object.keys(endpoints).length
    if (kept === 0) return []
    return kept === tool.selectors.length ? [tool] : [makeTool({ ...tool, endpoints })]
  })

/** Why the service would refuse a person of this reach the call, when it would (their scopes aside: the gate's). */
export const beyondOf = (tool: Tool, selector: string, reach: Reach): string | undefined => {
  const group = tool.groups?.[selector] ?? tool.group
  const endpoint = tool.endpoints[selector] ?? ""
  if (GROUP_RANK[group] > reach.level) {
    return `the service user your calls go as has the level ${LEVELS[reach.level] ?? "none"}, which does not reach ${group}/${endpoint}: the service would refuse it`
  }
  if (reach.minted === true && ADMINS_ONLY.has(endpoint)) {
    return `the service reserves ${endpoint} to its admins, and the service user your calls go as is not one: the service would refuse it`
  }
  return undefined
}

/** `make`'s answer for each reach, made when first asked for: one per reach, at most twenty-four. */
export const memo = <A>(make: (reach: Reach) => A): ((reach: Reach) => A) => {
  const made = new Map<string, A>()
  return (reach) => {
    const key = `${reach.tier}.${reach.level}.${reach.minted === true}`
    let found = made.get(key)
    if (found === undefined) {
      found = make(reach)
      made.set(key, found)
    }
    return found
  }
}
