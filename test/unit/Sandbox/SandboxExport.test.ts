/**
 * The sandbox's exports are the TOML the service writes: each field of a
 * resource that differs from its default, a deployment's image among them;
 * and they read back: a sync fed with an export, in a fresh sandbox that lacks
 * those resources, makes them again as they were.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Toml from "../../../src/Tools/Sync/Toml.js"
import * as TomlRead from "../../../src/Tools/Sync/TomlRead.js"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const TARGETS = [
  ["Deployment", "api", "deployment"],
  ["Stack", "web", "stack"],
  ["Build", "docs-image", "build"],
  ["Procedure", "release", "procedure"],
] as const

/** Each resource's fields as the service's reads show them: references and tags by name. */
const recordOf = (ok: ReturnType<typeof Sandboxes.asAdmin>["ok"]) =>
  Effect.gen(function* () {
    const servers = new Map((yield* ok("read/ListServers", {})).map((s: Any) => [s.id, s.name]))
    const builders = new Map((yield* ok("read/ListBuilders", {})).map((s: Any) => [s.id, s.name]))
    const tags = new Map((yield* ok("read/ListTags", {})).map((t: Any) => [t._id.$oid, t.name]))
    const out: Record<string, unknown> = {}
    for (const [type, name, key] of TARGETS) {
      const r = yield* ok(`read/Get${type}`, { [key]: name })
      const { server_id, builder_id, ...config } = r.config
      out[name] = {
        config,
        server: servers.get(server_id) ?? server_id,
        builder: builders.get(builder_id) ?? builder_id,
        description: r.description,
        tags: r.tags.map((id: string) => tags.get(id)),
      }
    }
    return out
  })

/** The fields of the one resource an export writes, as the TOML parser reads them. */
const fieldsOf = (toml: string) => TomlRead.fieldsOf(Toml.resourceOf(toml) ?? {})

describe("the sandbox's exports", () => {
  it.scopedLive("write each field that differs from its default, the deployment's image and server by name", () =>
    Effect.gen(function* () {
      const { ok } = Sandboxes.asAdmin(yield* Sandboxes.scoped({}))
      const { toml } = yield* ok("read/ExportResourcesToToml", { targets: [{ type: "Deployment", id: "api" }] })
      expect(toml.split("\n")[0]).toBe("[[deployment]]")
      const fields = fieldsOf(toml)
      expect(fields.get("name")).toBe("api")
      expect(fields.get("tags")).toBe('["production"]')
      expect(fields.get("config.server")).toBe("prod-01")
      expect(fields.get("config.image.type")).toBe("Image")
      expect(fields.get("config.image.params.image")).toBe("ghcr.io/acme/api:1.4.2")
      expect(fields.get("config.restart")).toBe("unless-stopped")
      // Nothing at its default: no empty string, no false, no zero, no empty list.
      for (const [field, value] of fields) expect(["", "false", "0", "[]"], field).not.toContain(value)
      // A procedure's stages as inline tables, whole.
      const release = yield* ok("read/ExportResourcesToToml", { targets: [{ type: "Procedure", id: "release" }] })
      expect([...fieldsOf(release.toml)]).toContainEqual([
        expect.stringMatching(/^config\.stages\[\d\]\.executions\[\d\]\.execution\.params\.build$/),
        "api-image",
      ])
    }),
  )

  it.scopedLive("read back: a sync fed with an export makes the same resources in a fresh sandbox", () =>
    Effect.gen(function* () {
      const first = Sandboxes.asAdmin(yield* Sandboxes.scoped({}))
      // A description and a setting by hand, so that the round trip carries more than the seed's.
      yield* first.ok("write/UpdateResourceMeta", {
        target: { type: "Deployment", id: "api" },
        description: 'the "public" API',
      })
      yield* first.ok("write/UpdateDeployment", { id: "api", config: { environment: "PORT=8080\nMODE=prod" } })
      const { toml } = yield* first.ok("read/ExportResourcesToToml", {
        targets: TARGETS.map(([type, id]) => ({ type, id })),
      })
      const before = yield* recordOf(first.ok)

      const fresh = Sandboxes.asAdmin(yield* Sandboxes.scoped({ timing: { completeMs: 20 } }))
      for (const [type, name, key] of TARGETS) {
        const r = yield* fresh.ok(`read/Get${type}`, { [key]: name })
        yield* fresh.ok(`write/Delete${type}`, { id: r._id.$oid })
      }
      yield* fresh.ok("write/WriteSyncFileContents", {
        sync: "estate-sync",
        resource_path: "resources",
        file_path: "sync.toml",
        contents: toml,
      })
      const plan = (yield* fresh.ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info
      expect(plan.pending_error).toBe("")
      expect(plan.resource_updates.map((u: Any) => `${u.target.type} ${u.data.type}`).sort()).toEqual(
        TARGETS.map(([type]) => `${type} Create`).sort(),
      )
      const run = yield* fresh.run("RunSync", { sync: "estate-sync" })
      expect(run.success).toBe(true)
      expect(yield* recordOf(fresh.ok)).toEqual(before)
      // Made as the export said, nothing is pending any more.
      const after = (yield* fresh.ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info
      expect(after.resource_updates).toEqual([])
    }),
  )

  it.scopedLive(
    "a description or tags that differ from the file are in the plan as an update, and a run applies them",
    () =>
      Effect.gen(function* () {
        const { ok, run } = Sandboxes.asAdmin(yield* Sandboxes.scoped())
        const { toml } = yield* ok("read/ExportResourcesToToml", { targets: [{ type: "Deployment", id: "api" }] })
        const write = (contents: string) =>
          ok("write/WriteSyncFileContents", {
            sync: "estate-sync",
            resource_path: "resources",
            file_path: "sync.toml",
            contents,
          })
        const refresh = Effect.map(ok("write/RefreshResourceSyncPending", { sync: "estate-sync" }), (s) => s.info)
        yield* write(toml)
        expect((yield* refresh).resource_updates).toEqual([])

        // The same file, but for its description and tags.
        const edited = toml
          .split("\n")
          .filter((line: string) => !/^(description|tags) = /.test(line))
          .join("\n")
          .replace(
            'name = "api"\n',
            'name = "api"\ndescription = "the API, said by the file"\ntags = ["from-the-file"]\n',
          )
        expect(edited).toContain('tags = ["from-the-file"]')
        yield* write(edited)
        const plan = yield* refresh
        expect(plan.resource_updates.map((u: Any) => `${u.target.type} ${u.data.type}`)).toEqual(["Deployment Update"])
        expect(plan.resource_updates[0].data.data.proposed).toContain("the API, said by the file")
        expect((yield* run("RunSync", { sync: "estate-sync" })).success).toBe(true)
        const api = yield* ok("read/GetDeployment", { deployment: "api" })
        expect(api.description).toBe("the API, said by the file")
        const tags = new Map((yield* ok("read/ListTags", {})).map((t: Any) => [t._id.$oid, t.name]))
        expect(api.tags.map((id: string) => tags.get(id))).toEqual(["from-the-file"])
        expect((yield* refresh).resource_updates).toEqual([])
      }),
  )

  it.scopedLive("a sync's file that is not TOML is the refresh's error, and the plan stays as it was", () =>
    Effect.gen(function* () {
      const { ok } = Sandboxes.asAdmin(yield* Sandboxes.scoped({}))
      const before = (yield* ok("read/GetResourceSync", { sync: "estate-sync" })).info.pending_hash
      yield* ok("write/WriteSyncFileContents", {
        sync: "estate-sync",
        resource_path: "resources",
        file_path: "sync.toml",
        contents: '[[deployment]]\nname = "api\n',
      })
      const info = (yield* ok("write/RefreshResourceSyncPending", { sync: "estate-sync" })).info
      expect(info.pending_error).toMatch(/^TOML parse error at line 2: an unclosed string/)
      expect(info.pending_hash).toBe(before)
    }),
  )
})
