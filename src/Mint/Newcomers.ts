/**
 * The bound on people new to the service (SVC_MCP_MINT_NEW_PER_MINUTE): each
 * costs a service user that stays, and a `*` entry admits anyone the issuer
 * signs in. Counted per process, over the last minute.
 */
import * as Effect from "effect/Effect"
import { MintError } from "./Shape.js"

const MINUTE_MS = 60_000

/** Admits one more new person, or refuses with the seconds until one may come. */
export const make = (limit: number) => {
  const times: Array<number> = []
  return (person: string): Effect.Effect<void, MintError> =>
    Effect.suspend(() => {
      const now = Date.now()
      while (times.length > 0 && (times[0] as number) <= now - MINUTE_MS) times.shift()
      if (times.length < limit) {
        times.push(now)
        return Effect.void
      }
      const retryAfter = Math.max(1, Math.ceil(((times[0] as number) + MINUTE_MS - now) / 1000))
      return Effect.fail(
        new MintError({
          person,
          reason: `${limit} people new to the service were minted for in the last minute, the most SVC_MCP_MINT_NEW_PER_MINUTE allows; try again in ${retryAfter} s`,
          retryAfter,
        }),
      )
    })
}
