/**
 * The class `destructive` of every pattern setting (SVC_CONFIRM=destructive and the rest): every
 * selector, at either reach, whose call removes or stops something is in it, and nothing else.
 * What removes or stops is written here from the service's own names for it (its endpoints'
 * verbs: Delete, Destroy, Prune, Remove, Stop, Clear) and the two changes that disable a user or
 * replace a group's members, not read from the class's table; the tools' annotations must say
 * destructive of every member.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "fast-check"
import * as GuardSettings from "../../../src/Settings/Guard.js"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import * as Classes from "../../../src/Tools/Catalog/Classes.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import { all as reachAll } from "../../../src/Tools/Policy/Reach.js"
import { decider } from "../../../src/Untrusted/Guard.js"
import { runs } from "../../support/Runs.js"

/** The service's verbs for a call that removes or stops, at the head of its endpoint's name. */
const REMOVES_OR_STOPS = /^(Batch)?(Delete|Destroy|Prune|Remove|Stop|Clear)/
/** The changes that disable a user (enabled: false), or take every member not named out of a group. */
const DISABLES = new Set(["UpdateUserBasePermissions", "SetUsersInUserGroup"])

const every = reachAll.flatMap((tool) =>
  Object.entries(tool.endpoints).map(([selector, endpoint]) => ({ tool, selector, endpoint })),
)

const removesOrStops = (endpoint: string) => REMOVES_OR_STOPS.test(endpoint) || DISABLES.has(endpoint)

const settingsFrom = (env: Record<string, string>) =>
  Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("the class destructive", () => {
  it("holds every selector whose call removes or stops, at every reach, and no other", () => {
    expect(every.length).toBeGreaterThan(300)
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom(...every), ({ tool, selector, endpoint }) => {
        expect(Classes.holds("destructive", tool.name, selector), `${tool.name}:${selector} (${endpoint})`).toBe(
          removesOrStops(endpoint),
        )
      }),
      { numRuns: runs(400) },
    )
    // And exhaustively, as the list is short: each member, named.
    const members = every.filter(({ tool, selector }) => Classes.isDestructive(tool.name, selector))
    expect(members.map(({ endpoint }) => endpoint).filter((e) => !removesOrStops(e))).toEqual([])
    expect(every.filter(({ endpoint }) => removesOrStops(endpoint)).length).toBe(members.length)
    // The tools' annotations say destructive of every member.
    for (const { tool, selector } of members) expect(tool.hints.destructiveHint, `${tool.name}:${selector}`).toBe(true)
  })

  it("takes, at the interface's reach, the prunes, deletes, destroys and stops the documented patterns let through", () => {
    const members = Classes.members("destructive", Definitions.all)
    for (const name of [
      "svc_execute:run_server_prune_images",
      "svc_execute:run_server_prune_containers",
      "svc_execute:run_server_prune_networks",
      "svc_execute:prune_system",
      "svc_execute:delete_volume",
      "svc_execute:delete_image",
      "svc_execute:delete_network",
      "svc_execute:batch_destroy_stack",
      "svc_execute:batch_destroy_deployment",
      "svc_execute:remove_swarm_stacks",
      "svc_execute:stop_stack",
      "svc_execute:stop_all_containers",
      "svc_delete:stack",
      "svc_delete:variable",
    ]) {
      expect(members).toContain(name)
    }
    for (const name of [
      "svc_execute:deploy_stack",
      "svc_execute:deploy",
      "svc_execute:start_stack",
      "svc_update:stack",
    ]) {
      expect(members).not.toContain(name)
    }
  })

  it.effect("is a pattern of SVC_CONFIRM, SVC_DENY and SVC_ALLOW; a misspelt class says the one meant", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({ SVC_CONFIRM: "destructive", SVC_DENY: "svc_execute:prune_system" })
      expect(settings.confirm.map((p) => [p.text, p.class])).toEqual([["destructive", "destructive"]])
      const policy = yield* Policy.make(settings)
      const execute = policy.tools.find((tool) => tool.name === "svc_execute")
      const deletes = policy.tools.find((tool) => tool.name === "svc_delete")
      if (execute === undefined || deletes === undefined) throw new Error("svc_execute and svc_delete are offered")
      expect(policy.confirmation(execute, "run_server_prune_images")?.text).toBe("destructive")
      expect(policy.confirmation(execute, "stop_container")?.text).toBe("destructive")
      expect(policy.confirmation(deletes, "stack")?.text).toBe("destructive")
      expect(policy.confirmation(execute, "deploy_stack")).toBeUndefined()
      expect(policy.summary).toMatch(/SVC_CONFIRM=destructive/)
      // Denied as a class: every member leaves the enums, the rest stays.
      const denied = yield* Policy.make(yield* settingsFrom({ SVC_DENY: "destructive" }))
      expect(denied.tools.map((tool) => tool.name)).not.toContain("svc_delete")
      const left = denied.tools.find((tool) => tool.name === "svc_execute")?.selectors ?? []
      expect(left).toContain("deploy_stack")
      expect(left.filter((s) => Classes.isDestructive("svc_execute", s))).toEqual([])
      // A misspelt class is refused at the start, with the class meant.
      const typo = yield* Effect.flip(settingsFrom({ SVC_CONFIRM: "destructiv" }))
      expect(typo.message).toMatch(
        /"destructiv", which is neither tool:selector nor a class \(destructive\); did you mean destructive\?/,
      )
    }),
  )

  it("is a pattern of SVC_GUARD_HOLD too: its members are held, and -destructive lets them through", () => {
    const hold = (text: string) =>
      decider({ mode: "ask", windowMs: 1_000, hold: Either.getOrThrow(GuardSettings.parseHold(text)) })
    // What the table lets through (a stop is held there already): a class can hold or free it.
    expect(hold("destructive")("svc_execute", "stop_stack", "StopStack", ["destructive"])).toEqual({
      held: true,
      why: "SVC_GUARD_HOLD (destructive)",
    })
    expect(hold("-destructive")("svc_delete", "stack", "DeleteStack", ["destructive"]).held).toBe(false)
    expect(hold("-destructive")("svc_execute", "deploy_stack", "DeployStack", []).why).toBe(
      "runs again what is configured",
    )
  })

  it("is listed whole by docs/configuration.md", () => {
    const docs = Fs.readFileSync(Path.join(import.meta.dirname, "../../../docs/configuration.md"), "utf8")
    const section = docs.slice(docs.indexOf("## The class destructive"))
    for (const [tool, selectors] of Classes.destructiveByTool()) {
      const name = tool.split(" ")[0] ?? tool
      expect(section).toContain(`\`${name}\``)
      if (selectors !== "every selector")
        for (const selector of selectors.split(", ")) expect(section).toContain(`\`${selector}\``)
    }
  })

  it("a pattern that names no selector says the selector meant", () => {
    expect(Policy.guessOf("svc_execute:prune_volume", Definitions.all)).toBe("did you mean svc_execute:prune_volumes?")
    expect(Policy.guessOf("svc_exeucte:prune_system", Definitions.all)).toBe("did you mean svc_execute:prune_system?")
    expect(Policy.guessOf("svc_logs:zzzz", Definitions.all)).toMatch(/^svc_logs's selectors are deployment, stack/)
  })
})
