/**
 * Which lists the service pages, and its default page: a list that comes back
 * as exactly one default page may have more behind it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Once from "../../Shared/Once.js"
import { SvcClient, type SvcClientShape } from "../../SvcClient.js"

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

export interface DefaultPageShape {
  /** The service's default page size. */
  readonly size: Effect.Effect<number>
}

/** The service's default page, as this client learned it. */
export class DefaultPage extends Context.Tag("svc-mcp/DefaultPage")<DefaultPage, DefaultPageShape>() {}

/**
 * The service's default page (`read/GetCoreInfo` `default_pagination_limit`),
 * read once, on first need; 50 when that read fails. The read runs on its own
 * fiber, so that a cancelled call does not leave it half done for the others.
 */
export const make: Effect.Effect<DefaultPageShape, never, SvcClient> = Effect.gen(function* () {
  const client = yield* SvcClient
  const started = yield* Effect.cached(Effect.forkDaemon(read(client)))
  // Once learned, the size is read as a value: a list's call takes no step through the cache and the
  // fiber. Until then each call joins the read's fiber, a join its cancellation interrupts.
  return { size: Once.remembered(Effect.flatMap(started, Fiber.join)) }
})

export const layer: Layer.Layer<DefaultPage, never, SvcClient> = Layer.effect(DefaultPage, make)
