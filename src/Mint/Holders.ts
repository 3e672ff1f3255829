/**
 * Who holds minted keys at the service, for `svc-mcp people`: every service user of ours that is
 * disabled or holds a key, with when each key was made, and whether the service's list was cut.
 */
import * as Effect from "effect/Effect"
import type { SvcError } from "../Service/Errors.js"
import * as MintService from "./Service.js"
import type { Holder, Holders } from "./Shape.js"

export const holdersOf = (service: MintService.MintService): Effect.Effect<Holders, SvcError> =>
  Effect.gen(function* () {
    const listed = yield* service.users
    const holders = yield* Effect.forEach(
      listed.users,
      (user): Effect.Effect<Holder, SvcError> =>
        // A disabled user's keys authenticate no one: not asked for.
        Effect.map(user.enabled ? service.keys(user.id) : Effect.succeed([]), (keys) => ({
          person: user.username.slice(MintService.USER_PREFIX.length),
          username: user.username,
          created: keys.map((k) => k.created).sort((a, b) => b - a),
          description: user.description,
          enabled: user.enabled,
        })),
      { concurrency: 4 },
    )
    return { holders: holders.filter((h) => h.created.length > 0 || !h.enabled), cut: listed.cut }
  })
