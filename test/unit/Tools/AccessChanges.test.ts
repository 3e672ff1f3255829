/**
 * SVC_ACCESS_CHANGES: read as every setting is; the mode's default; the
 * selectors it takes out of every tool; and the user groups a sync's file text
 * declares, however TOML spells their key.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Settings from "../../../src/Settings/ToolSettings.js"
import { SvcClient } from "../../../src/SvcClient.js"
import { declaredGroups, syncRefusal } from "../../../src/Tools/Policy/AccessChanges.js"
import { ACCESS_ENDPOINTS } from "../../../src/Tools/Policy/AccessEndpoints.js"
import * as Policy from "../../../src/Tools/Policy/Policy.js"
import * as Layers from "../../support/Layers.js"
import * as Sandboxes from "../../support/Sandbox.js"

const settingsFrom = (env: Record<string, string>) =>
  Settings.loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const policyOf = (mode: Settings.Mode, accessChanges: Option.Option<Settings.AccessChanges>) =>
  Effect.flatMap(Policy.toolsOf("all"), (tools) =>
    Policy.make({ mode, allow: Option.none(), deny: [], confirm: [], accessChanges }, tools),
  )

describe("SVC_ACCESS_CHANGES", () => {
  it.effect("deny or allow; unset, only full mode allows; anything else is refused by name", () =>
    Effect.gen(function* () {
      const denied = (env: Record<string, string>) => Effect.map(settingsFrom(env), Settings.accessDenied)
      expect(yield* denied({})).toBe(false)
      expect(yield* denied({ SVC_MODE: "operate" })).toBe(true)
      expect(yield* denied({ SVC_MODE: "read-only" })).toBe(true)
      expect(yield* denied({ SVC_ACCESS_CHANGES: "deny" })).toBe(true)
      expect(yield* denied({ SVC_MODE: "operate", SVC_ACCESS_CHANGES: " Allow " })).toBe(false)
      const refused = yield* Effect.flip(settingsFrom({ SVC_ACCESS_CHANGES: "never" }))
      expect(refused.message).toMatch(/^SVC_ACCESS_CHANGES is "never": use deny .* or allow/)
    }),
  )

  it.effect("deny takes every selector of the table out of every tool, and refuses a call naming one", () =>
    Effect.gen(function* () {
      const allowed = yield* policyOf("full", Option.some("allow"))
      const denied = yield* policyOf("full", Option.some("deny"))
      const endpoints = (policy: Policy.PolicyShape) => policy.tools.flatMap((tool) => Object.values(tool.endpoints))
      const access = Object.keys(ACCESS_ENDPOINTS)
      expect(endpoints(allowed)).toEqual(expect.arrayContaining(access))
      expect(endpoints(denied).filter((e) => access.includes(e))).toEqual([])
      // Nothing else is taken out.
      expect(endpoints(allowed).length - endpoints(denied).length).toBe(access.length)
      const call = denied.authorize("svc_update", { resource_type: "permission_on_target", params: {} })
      expect(Either.isLeft(call) && call.left.message).toMatch(
        /svc_update "permission_on_target" is refused: it changes a permission on a resource: SVC_ACCESS_CHANGES=deny/,
      )
    }),
  )
})

describe("the user groups a sync's file text declares", () => {
  it("whatever the key's spelling: bare, quoted, escaped, literal, spaced; inline; each by its name", () => {
    expect(declaredGroups("[[user_group]]\nname = \"a\"\n\n[[user_group]]\nname = 'b'\n")).toEqual(["a", "b"])
    expect(declaredGroups('[[ "user_group" ]]\nname = "a"\n')).toEqual(["a"])
    expect(declaredGroups('[["user\\u005fgroup"]]\nname = "a\\u0041"\n')).toEqual(["aA"])
    expect(declaredGroups("[['user_group']]\n")).toEqual(["(unnamed)"])
    expect(declaredGroups('user_group = [{ name = "a" }, { everyone = true }]\n')).toEqual(["a", "(unnamed)"])
    expect(declaredGroups('[[user_group]]\nname = "a"\n[user_group.all]\nServer = "Write"\n')).toEqual(["a"])
    expect(declaredGroups('\r\n  [[user_group]]\r\n  name = "a"\r\n')).toEqual(["a"])
    // A table where the service reads an array is read as one group all the same: refused, not missed.
    expect(declaredGroups('[user_group]\nname = "one"\n')).toEqual(["one"])
  })

  it("a line of a multi-line array that looks like a header is none: a user group after it is found", () => {
    const text = [
      "tags = [",
      '  ["x"],',
      "]",
      'user_group = [{ name = "writers", users = ["viewer"], permissions = [',
      '  { target = { type = "Server", id = "prod-01" }, level = "Write" },',
      "] }]",
      "",
      "[[stack]]",
      'name = "web"',
    ].join("\n")
    expect(declaredGroups(text)).toEqual(["writers"])
    // Nor does a header inside a string declare anything.
    expect(declaredGroups('[[stack]]\nname = "web"\ndescription = """\n[[user_group]]\nname = "no"\n"""\n')).toEqual([])
  })

  it("none in a file of resources, whatever their fields say", () => {
    expect(declaredGroups('[[stack]]\nname = "user_group"\n[stack.config]\nuser_group = "x"\n')).toEqual([])
    expect(declaredGroups("")).toEqual([])
  })

  it("a text the parser cannot read is said so, with the parser's reason and no line of the text", () => {
    const read = declaredGroups('[[stack]]\nname = "web"\nname = "twice"\n[[user_group]]\nname = "hidden"\n')
    expect(read).toEqual({ unread: expect.stringMatching(/redefine.*\(line 3, column \d+\)$/) })
    expect(JSON.stringify(read)).not.toContain("hidden")
  })
})

describe("a run refused on the sync's pending plan, against the sandbox", () => {
  const stage = (name: string, execution: Record<string, unknown>) => ({
    name,
    enabled: true,
    executions: [{ enabled: true, execution }],
  })

  it.scopedLive("a sync's run, a procedure's that runs it, and one that runs that procedure; not another", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      yield* Effect.gen(function* () {
        const client = yield* SvcClient
        const refusal = (
          endpoint: string,
          params: Record<string, unknown>,
          settings: Settings.ServerSettingsShape["mode"] = "operate",
        ) => syncRefusal(client, endpoint, params, { mode: settings }, (name) => name)
        const procedure = (name: string, execution: Record<string, unknown>) =>
          client.call("write", "CreateProcedure", { name, config: { stages: [stage("one", execution)] } })
        yield* procedure("resync", { type: "RunSync", params: { sync: "estate-sync" } })
        yield* procedure("outer", { type: "RunProcedure", params: { procedure: "resync" } })
        yield* procedure("backup-only", { type: "BackupCoreDatabase", params: {} })

        const run = yield* refusal("RunSync", { sync: "estate-sync" })
        expect(run).toContain('touch user groups (update "developers")')
        expect(run).toContain("operate mode (SVC_MODE)")
        expect(yield* refusal("RunProcedure", { procedure: "resync" })).toContain('a stage runs the sync "estate-sync"')
        expect(yield* refusal("RunProcedure", { procedure: "outer" })).toContain('"developers"')
        expect(yield* refusal("RunProcedure", { procedure: "backup-only" })).toBeUndefined()
        expect(yield* refusal("RunSync", { sync: "estate-sync" }, "full")).toBeUndefined()
        // A sync that cannot be read is refused: whether it changes groups is unknown.
        expect(yield* refusal("CommitSync", { sync: "no-such-sync" })).toContain("could not be read whole first")
        // A sync's file text that declares user groups is refused, naming them; one without them goes through.
        const groups = '[[user_group]]\nname = "ops"\nusers = ["carol"]\n'
        const write = (contents: string) => ({ sync: "s", file_path: "a.toml", resource_path: "", contents })
        expect(yield* refusal("WriteSyncFileContents", write(groups))).toContain('declares the user groups "ops"')
        expect(yield* refusal("WriteSyncFileContents", write(groups), "full")).toBeUndefined()
        expect(yield* refusal("WriteSyncFileContents", write('[[stack]]\nname = "web"\n'))).toBeUndefined()
        const created = { name: "s2", config: { file_contents: groups } }
        expect(yield* refusal("CreateResourceSync", created)).toContain('declares the user groups "ops"')
        // A text that is no TOML cannot be read for them: refused, saying so; allowed where access changes are.
        const broken = write('[[stack]]\nname = "web"\nuser_group = [')
        expect(yield* refusal("WriteSyncFileContents", broken)).toMatch(
          /^the sync's file text could not be read as TOML \(.+\), so whether it declares user groups is unknown: /,
        )
        expect(yield* refusal("WriteSyncFileContents", broken, "full")).toBeUndefined()
      }).pipe(Effect.provide(Layers.client(Sandboxes.apiKeyConfig(sandbox))))
    }),
  )
})
