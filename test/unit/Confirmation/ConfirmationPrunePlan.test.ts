/**
 * A prune's question against the sandbox names exactly what the prune then removes: a container
 * prune the stopped containers; a system prune (`docker system prune -a --volumes`) those, then
 * every network, image and volume that no container left uses, the total of what is sized being
 * what the sandbox says it reclaimed, less the containers' layers it does not size.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Shown from "../../../src/Call/Shown.js"
import * as Question from "../../../src/Confirmation/Question.js"
import { SvcClient } from "../../../src/SvcClient.js"
import type { Invocation } from "../../../src/Tools/Invoke.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read the service's JSON answers field by field
type Any = any

const call = (group: "read" | "execute", endpoint: string, params: object) =>
  Effect.flatMap(SvcClient, (client) => client.call(group, endpoint, params)) as Effect.Effect<Any, Any, SvcClient>

const LISTS = { containers: "ListContainers", networks: "ListNetworks", images: "ListImages", volumes: "ListVolumes" }
type Kind = keyof typeof LISTS

const namesOn = (server: string) =>
  Effect.forEach(Object.entries(LISTS), ([kind, list]) =>
    Effect.map(
      call("read", list, { server }),
      (items: Array<Any>) => [kind, items.map((i) => String(i.name))] as const,
    ),
  ).pipe(Effect.map((entries) => Object.fromEntries(entries) as Record<Kind, Array<string>>))

/** What the question names under each kind's heading. */
const namedIn = (question: string) => {
  const named: Partial<Record<Kind, Array<string>>> = {}
  let kind: Kind | undefined
  for (const line of question.split("\n")) {
    const head = /^This removes (?:\d+|no) (\w+) on the server/.exec(line)
    if (head !== null) {
      kind = head[1] as Kind
      named[kind] = []
    } else if (kind !== undefined && line.startsWith('  "')) named[kind]?.push(/^ {2}"([^"]+)"/.exec(line)?.[1] ?? "")
    else kind = undefined
  }
  return named
}

const prune = (selector: string, endpoint: string, server: string): Invocation => ({
  shown: Shown.Shown.Glance(),
  tool: "svc_execute",
  wait: false,
  schema: false,
  selectorKey: "operation",
  selector,
  endpoint: `execute/${endpoint}`,
  body: { server },
})

/** Asks, runs the prune to its end, and answers what the question named and what went, by kind. */
const askThenRun = (selector: string, endpoint: string, server: string) =>
  Effect.gen(function* () {
    const before = yield* namesOn(server)
    const question = yield* Question.message({ invocation: prune(selector, endpoint, server), revealSecrets: false })
    const update = yield* call("execute", endpoint, { server })
    let done: Any
    for (let i = 0; i < 400; i++) {
      done = yield* call("read", "GetUpdate", { id: update._id.$oid })
      if (done.status === "Complete") break
      yield* Effect.sleep("5 millis")
    }
    const after = yield* namesOn(server)
    const gone = Object.fromEntries(
      (Object.keys(LISTS) as Array<Kind>).map((k) => [k, before[k].filter((n) => !after[k].includes(n)).sort()]),
    ) as Record<Kind, Array<string>>
    const output = (done.logs as Array<Any>).map((l) => String(l.stdout)).join("\n")
    return { question, named: namedIn(question), gone, output }
  })

describe("a prune's question", () => {
  it.scopedLive("a container prune names the stopped containers, exactly those the sandbox removes", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const { question, named, gone } = yield* askThenRun(
          "run_server_prune_containers",
          "PruneContainers",
          "staging-01",
        )
        expect(gone.containers.length, question).toBeGreaterThan(0)
        expect([...(named.containers ?? [])].sort()).toEqual(gone.containers)
        expect(question).toContain(`This removes ${gone.containers.length} containers on the server "staging-01"`)
        // Once they are gone, nothing is left to prune.
        const again = yield* askThenRun("run_server_prune_containers", "PruneContainers", "staging-01")
        expect(again.question).toMatch(
          /\nThis removes no containers on the server "staging-01": all \d+ are in use\.\n/,
        )
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )

  it.scopedLive(
    "a system prune names the stopped containers and all that only they used, as the sandbox removes them",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        yield* Effect.gen(function* () {
          const { question, named, gone, output } = yield* askThenRun("prune_system", "PruneSystem", "staging-01")
          for (const kind of Object.keys(LISTS) as Array<Kind>) {
            expect([...(named[kind] ?? [])].sort(), `${kind}: ${question}`).toEqual(gone[kind])
          }
          // Images only the stopped containers used go with them.
          expect(gone.images.length, question).toBeGreaterThan(0)
          const sized = [...question.matchAll(/ in all \((\d+) bytes\):/g)].reduce((sum, m) => sum + Number(m[1]), 0)
          const containers = gone.containers.length * 1_000_000
          const total = sized + containers
          const docker = total >= 1e9 ? `${Math.round(total / 1e8) / 10}GB` : `${Math.round(total / 1e6)}MB`
          expect(output).toContain(`Total reclaimed space: ${docker}`)
        }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
      }),
  )
})
