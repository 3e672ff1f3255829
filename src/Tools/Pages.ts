/**
 * Which lists the service pages, and its default page: a list that comes back
 * as exactly one default page may have more behind it.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { SvcClient, type SvcClientShape } from "../SvcClient.js"

/** The paginated endpoints, as service-notes.md ("Lists and pages") gives them; the others ignore `limit`. */
export const PAGINATED: ReadonlySet<string> = new Set([
  ...[
    "Stacks",
    "Builds",
    "Servers",
    "Procedures",
    "Deployments",
    "Alerters",
    "ResourceSyncs",
    "Actions",
    "Repos",
    "Builders",
    "Swarms",
  ].flatMap((kind) => [`read/List${kind}`, `read/ListFull${kind}`]),
  "read/ListAllContainers",
  "read/ListAllStackServices",
  "read/ListSchedules",
])

/** The service's own default when its configuration does not say. */
export const FALLBACK_PAGE = 50

const read = (client: SvcClientShape): Effect.Effect<number> =>
  client.call("read", "GetCoreInfo", {}).pipe(
    // A read the user did not ask for: its failure is not theirs to be warned of.
    Logger.withMinimumLogLevel(LogLevel.Error),
    Effect.map((info) => {
      const limit = (info as { default_pagination_limit?: unknown } | null)?.default_pagination_limit
      return typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0 ? limit : FALLBACK_PAGE
    }),
    Effect.catchAll((error) =>
      Effect.as(
        Effect.logDebug(`the service's default page is unknown (${error.message}); ${FALLBACK_PAGE} assumed`),
        FALLBACK_PAGE,
      ),
    ),
  )

const pages = new WeakMap<SvcClientShape, Deferred.Deferred<number>>()

/**
 * The service's default page (`read/GetCoreInfo` `default_pagination_limit`),
 * read once per client, on first need; 50 when that read fails. The read runs
 * on its own fiber, so that a cancelled call does not leave it half done for the others.
 */
export const defaultPage: Effect.Effect<number, never, SvcClient> = Effect.gen(function* () {
  const client = yield* SvcClient
  let page = pages.get(client)
  if (page === undefined) {
    const fresh = yield* Deferred.make<number>()
    pages.set(client, fresh)
    yield* Effect.forkDaemon(Deferred.complete(fresh, read(client)))
    page = fresh
  }
  return yield* Deferred.await(page)
})
