/**
 * The fleet view, an MCP App: one HTML page (src/View/App/, built into
 * dist/fleet-view.js) that shows servers, stacks, deployments, recent updates
 * and open alerts, and acts on them by calling the tools through the host.
 *
 * An optional part, off by default: the adapter serves it as the resource
 * `ui://svc-mcp/fleet` and links `svc_summary` to it when `layer` is provided
 * (the command line does; an embedding program may). The page itself is imported by its first
 * read, never at start.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

export const URI = "ui://svc-mcp/fleet"

/** The tools whose results a host shows in the view. */
export const LINKED_TOOLS: ReadonlyArray<string> = ["svc_summary"]

export class ViewUnavailable extends Data.TaggedError("ViewUnavailable")<{ readonly message: string }> {}

export interface FleetViewShape {
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly linkedTools: ReadonlyArray<string>
  /** The page, with the names of the services it may pick from (none for one unnamed service). */
  readonly page: (services: ReadonlyArray<string>) => Effect.Effect<string, ViewUnavailable>
}

/** The view when it is served; None, the default, when it is off. */
export class FleetView extends Context.Reference<FleetView>()("svc-mcp/FleetView", {
  defaultValue: (): Option.Option<FleetViewShape> => Option.none(),
}) {}

// Where the services' names go: a JSON block the page reads (fleet.html).
const SERVICES_BLOCK = '<script id="svc-services" type="application/json">[]</script>'

/** The names as JSON inside a script element: `<` escaped, so that no name can end the element. */
const servicesBlock = (services: ReadonlyArray<string>) =>
  SERVICES_BLOCK.replace("[]", () => JSON.stringify(services).replace(/</g, "\\u003c"))

export const make: Effect.Effect<FleetViewShape> = Effect.gen(function* () {
  // Imported by the first read and kept; a failed import is tried again by the next read.
  const kept = yield* Ref.make<string | undefined>(undefined)
  const built = Effect.flatMap(Ref.get(kept), (page) =>
    page !== undefined
      ? Effect.succeed(page)
      : Effect.tryPromise({
          try: () => import("./Page.js").then((module) => module.load()),
          // Where it was looked for is the operator's to know (the log), not the client's.
          catch: (error) => (error instanceof Error ? error.message : String(error)),
        }).pipe(
          Effect.tapError((problem) => Effect.logWarning(`the fleet view's page could not be loaded: ${problem}`)),
          Effect.mapError(
            () =>
              new ViewUnavailable({
                message: "the fleet view's page is not built in this installation (npm run build)",
              }),
          ),
          Effect.tap((loaded) => Ref.set(kept, loaded)),
        ),
  )
  return {
    uri: URI,
    name: "fleet",
    title: "Fleet",
    description:
      "Servers with their load, stacks and deployments, recent updates and open alerts; acts through the tools.",
    linkedTools: LINKED_TOOLS,
    page: (services) => Effect.map(built, (html) => html.replace(SERVICES_BLOCK, () => servicesBlock(services))),
  }
})

/** The view served. */
export const layer: Layer.Layer<FleetView> = Layer.effect(FleetView, Effect.map(make, Option.some))

/** No view (the default, when no layer provides one). */
export const layerOff: Layer.Layer<FleetView> = Layer.succeed(FleetView, Option.none())
