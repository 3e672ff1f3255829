/**
 * What a destructive execution removes, said before it runs: every svc_execute operation the
 * guard counts as losing data has its words in Tables.ts, which `schema: true` answers and
 * tools/list sums up; a prune says it takes every unused thing of its kind, not only the dangling.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Tables from "../../../src/Tools/Catalog/Tables.js"
import * as Hold from "../../../src/Untrusted/Hold.js"
import * as Layers from "../../support/Layers.js"
import * as Mcp from "../../support/Mcp.js"
import * as Double from "../../support/ServiceDouble.js"

const REMOVES: Readonly<Record<string, string>> = Tables.removes.svc_execute ?? {}

/** svc_execute's operations that lose data, as the guard's table says, and its stops. */
const losing = Object.entries(Tables.execute).filter(
  ([, endpoint]) => Hold.ruleOf("svc_execute", endpoint)?.reason === "loses data" || /^Stop/.test(endpoint),
)

describe("what a destructive execution removes", () => {
  it("is said for every operation that loses data or stops something, and for none other", () => {
    expect(losing.length).toBeGreaterThanOrEqual(20)
    expect(Object.keys(REMOVES).sort()).toEqual(losing.map(([selector]) => selector).sort())
    for (const [selector, words] of Object.entries(REMOVES)) expect(words.length, selector).toBeGreaterThan(10)
  })

  it("says a prune takes every unused one, images tagged or not, and which removes volumes", () => {
    expect(REMOVES.run_server_prune_images).toMatch(/^every image no container uses, tagged or not/)
    expect(REMOVES.prune_volumes).toMatch(/named ones too, with their data/)
    expect(REMOVES.prune_system).toMatch(/unused image \(tagged or not\).*unused volumes with their data/)
    for (const selector of ["destroy_stack", "destroy_deployment", "destroy_container"]) {
      expect(REMOVES[selector], selector).toMatch(/volumes stay$/)
    }
    // tools/list sums it up in a few words.
    expect(Definitions.svc_execute.description).toContain(
      "Prunes remove all unused: images tagged or not; prune_system volumes too.",
    )
  })

  it.scoped("is answered by schema: true on the operation, with nothing sent", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const { client } = yield* Mcp.connect(Layers.apiKey(double.url))
      const schema = (operation: string) =>
        Effect.map(
          Effect.promise(() => client.callTool({ name: "svc_execute", arguments: { operation, schema: true } })),
          (answer) => JSON.parse(Mcp.text(answer)) as Record<string, unknown>,
        )
      const images = yield* schema("run_server_prune_images")
      expect(images.removes).toBe("every image no container uses, tagged or not (docker image prune -a)")
      expect((yield* schema("prune_system")).removes).toMatch(/volumes with their data/)
      // A stop removes nothing, and says so.
      expect((yield* schema("stop_stack")).removes).toMatch(/^nothing: it stops the stack's containers/)
      // An operation that removes nothing says nothing of it.
      expect(yield* schema("deploy_stack")).not.toHaveProperty("removes")
      // What the question shows of it, read before asking, is said as its preview.
      expect(images.preview).toBe(
        "if asked (SVC_CONFIRM), the question shows the images it removes, each with its size, the total, and how many are kept in use, read just before asking",
      )
      expect((yield* schema("run_server_prune_containers")).preview).toMatch(/the stopped containers it removes/)
      expect((yield* schema("deploy")).preview).toMatch(
        /the image the deployment's container runs now and the image its config names/,
      )
      expect((yield* schema("deploy_stack")).preview).toMatch(/the commit deployed now and the repository's latest/)
      expect(yield* schema("restart_stack")).not.toHaveProperty("preview")
      const deleted = JSON.parse(
        Mcp.text(
          yield* Effect.promise(() =>
            client.callTool({ name: "svc_delete", arguments: { resource_type: "stack", schema: true } }),
          ),
        ),
      ) as Record<string, unknown>
      expect(deleted.preview).toMatch(
        /the procedures' stages, alerters and syncs that refer to it; for a stack, its services/,
      )
      expect(double.requests).toHaveLength(0)
    }),
  )
})
