/**
 * Minted keys end to end: two replicas of the built server over HTTP, sharing
 * a real redis-server, in front of the sandbox (which keeps service users,
 * their keys and permissions as the service does), with tokens from a
 * stand-in issuer (oidc-provider). The first call mints and the other replica
 * reuses the key; the permissions hold at the service; a deploy's Update names
 * the person's service user; a key is renewed across its (short) lifetime;
 * SIGHUP revokes; the tool list is each person's own, in both eras.
 */
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AuthServer from "../support/AuthServer.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Redis from "../support/Redis.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"
import { eventually } from "../support/Wait.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const client = (id: string) => ({ id, secret: `${id}-client-secret-0123456789` })
const ALICE = client("alice")
const BOB = client("bob")
const CAROL = client("carol")
const PUBLIC = "http://svc-mcp.mint.test"
const STATE_KEY = "the-replicas-share-this-state-key-of-44-bytes"
const META = HttpMcp.modernMeta("mint-test")
const LIFETIME_S = 12

const email = AuthServer.emailOf
const userOf = (name: string) => `svc-mcp:${email(name)}`

const GRANTS = {
  [email("alice")]: { mint: { level: "Write" } },
  [email("bob")]: { mint: { level: "Read", targets: ["Stack:web"] } },
  [email("carol")]: { mint: { level: "Execute" } },
}

const writeIdentities = (file: string, identities: Record<string, unknown>) =>
  Fs.writeFileSync(file, JSON.stringify({ claim: "email", identities }))

const call = (url: string, token: string, name: string, args: Record<string, unknown>) =>
  HttpMcp.modern(
    url,
    "tools/call",
    { name, arguments: args },
    { meta: META, headers: { authorization: `Bearer ${token}` } },
  )

const listed = (url: string, token: string) =>
  Effect.map(
    HttpMcp.modern(url, "tools/list", {}, { meta: META, headers: { authorization: `Bearer ${token}` } }),
    (answer) => answer.body.result,
  )

const json = (answer: { body: Any }) => {
  expect(answer.body.result?.isError, JSON.stringify(answer.body)).toBeFalsy()
  return answer.body.result.structuredContent
}

/** Every string value the store holds, for a look at what is kept there. */
const storeValues = (redis: Redis.RedisServer) =>
  Effect.promise(async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = Net.connect(redis.port, "127.0.0.1")
      let data = ""
      socket.setEncoding("utf8")
      socket.once("error", reject)
      socket.on("data", (chunk: string) => {
        data += chunk
      })
      socket.write("*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n")
      setTimeout(() => {
        socket.destroy()
        resolve(data)
      }, 300)
    })
    const keys = reply.split("\r\n").filter((_line, index, lines) => lines[index - 1]?.startsWith("$") === true)
    const values = await Promise.all(keys.map((key) => redis.command("GET", key)))
    return { keys, text: values.join("\n") }
  })

const setUp = Effect.gen(function* () {
  const redis = yield* Redis.scoped()
  const sandbox = yield* Sandbox.scoped()
  const admin = Sandbox.asAdmin(sandbox)
  const as = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE, BOB, CAROL] })
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-mint-"))
  const identities = Path.join(folder, "identities.json")
  writeIdentities(identities, GRANTS)
  const env = (name: string) => ({
    SVC_URL: sandbox.url,
    SVC_API_KEY: sandbox.apiKey.key,
    SVC_API_SECRET: sandbox.apiKey.secret,
    SVC_MCP_OAUTH_ISSUER: as.issuer,
    SVC_MCP_PUBLIC_URL: PUBLIC,
    SVC_MCP_IDENTITIES: identities,
    SVC_MCP_STORE: redis.url,
    SVC_MCP_STATE_KEY: STATE_KEY,
    SVC_MCP_MINT_LIFETIME: `${LIFETIME_S}s`,
    SVC_GUARD: "off",
    SVC_AUDIT_LOG: Path.join(folder, `audit-${name}.log`),
  })
  const [a, b] = yield* Effect.all([Spawn.serveHttp(env("a")), Spawn.serveHttp(env("b"))], {
    concurrency: "unbounded",
  })
  if (a === undefined || b === undefined) throw new Error("two replicas")
  const token = (who: { id: string; secret: string }, scope: string) => Effect.promise(() => as.clientToken(who, scope))
  const user = (name: string) => admin.ok("read/FindUser", { username: userOf(name) })
  const keysOf = (name: string) =>
    Effect.flatMap(user(name), (u) => admin.ok("read/ListApiKeysForServiceUser", { user: u._id.$oid }))
  return { redis, sandbox, admin, a, b, folder, identities, token, user, keysOf }
})

describe("keys minted for each person, two replicas sharing a store", () => {
  it.scopedLive(
    "the first call mints, the other replica reuses; permissions hold; the Update names the person's user; renewed, then revoked on SIGHUP",
    () =>
      Effect.gen(function* () {
        const { redis, sandbox, admin, a, b, folder, identities, token, user, keysOf } = yield* setUp
        const alice = yield* token(ALICE, "svc.write")

        // First call on A mints; the same person on B uses the very key.
        json(yield* call(a.url, alice, "svc_list", { resource_type: "stack" }))
        const minted = yield* keysOf("alice")
        expect(minted).toHaveLength(1)
        json(yield* call(b.url, alice, "svc_list", { resource_type: "server" }))
        expect((yield* keysOf("alice")).map((k: Any) => k.key)).toEqual(minted.map((k: Any) => k.key))
        // Its expiry is the lifetime's, as the service keeps it.
        expect(minted[0].expires - minted[0].created_at).toBeGreaterThan((LIFETIME_S - 2) * 1000)
        expect(minted[0].expires - minted[0].created_at).toBeLessThanOrEqual(LIFETIME_S * 1000 + 1000)

        // Concurrent first calls on both replicas: one service user, one key.
        const bobToken = yield* token(BOB, "svc.write")
        const both = yield* Effect.all(
          [a, b].map((r) => call(r.url, bobToken, "svc_list", { resource_type: "stack", fields: ["name"] })),
          { concurrency: "unbounded" },
        )
        expect(yield* keysOf("bob")).toHaveLength(1)
        const bobUsers = (yield* admin.ok("read/ListUsers", { service_users: "Only" })).filter(
          (u: Any) => u.username === userOf("bob"),
        )
        expect(bobUsers).toHaveLength(1)
        // The service applies bob's permissions: the one stack he may read, and no deploy.
        for (const answer of both) {
          expect(json(answer).result.map((row: Any) => row.name)).toEqual(["web"])
        }
        const refused = yield* call(a.url, bobToken, "svc_execute", {
          operation: "deploy_stack",
          params: { stack: "web" },
        })
        expect(refused.body.result.isError).toBe(true)
        expect(JSON.stringify(refused.body.result.structuredContent)).toMatch(/permission|Execute/i)

        // Alice's deploy: the Update's operator is her service user.
        const deployed = json(
          yield* call(b.url, alice, "svc_execute", { operation: "deploy_stack", params: { stack: "monitoring" } }),
        )
        const update = yield* admin.ok("read/GetUpdate", { id: deployed.update })
        expect(update.operator).toBe((yield* user("alice"))._id.$oid)
        // The audit names her and the service user acting for her; no secret is in any file or the store.
        const audit = Fs.readFileSync(Path.join(folder, "audit-b.log"), "utf8")
        expect(audit).toContain(`"who":"oauth:${email("alice")}"`)
        expect(audit).toContain(`"acting":"${userOf("alice")}"`)
        const stored = yield* storeValues(redis)
        expect(stored.keys.some((key) => key.startsWith("svc-mcp:mint:"))).toBe(true)
        for (const key of sandbox.world.apiKeys) {
          expect(stored.text).not.toContain(key.secret)
          expect(stored.text).not.toContain(key.key)
          expect(audit).not.toContain(key.secret)
          expect(a.stderr() + b.stderr()).not.toContain(key.secret)
        }

        // Past half its lifetime: a new key is minted and used, and the old one deleted.
        // Alice goes on working until it is: each call made with the key she has until then.
        const renewed = yield* eventually(
          Effect.zipRight(
            call(a.url, alice, "svc_list", { resource_type: "stack" }).pipe(Effect.map(json)),
            keysOf("alice"),
          ),
          (keys: Any) => keys.length === 1 && keys[0].key !== minted[0].key,
          (LIFETIME_S + 5) * 1000,
          "500 millis",
        )
        expect(renewed).toHaveLength(1)
        expect(renewed[0].key).not.toBe(minted[0].key)
        json(yield* call(b.url, alice, "svc_list", { resource_type: "stack" }))
        expect((yield* keysOf("alice")).map((k: Any) => k.key)).toEqual(renewed.map((k: Any) => k.key))

        // Carol leaves and bob's grant changes: SIGHUP deletes their keys within seconds.
        const carol = yield* token(CAROL, "svc.write")
        json(yield* call(a.url, carol, "svc_list", { resource_type: "stack" }))
        expect(yield* keysOf("carol")).toHaveLength(1)
        writeIdentities(identities, {
          [email("alice")]: GRANTS[email("alice")],
          [email("bob")]: { mint: { level: "Read" } },
        })
        a.child.kill("SIGHUP")
        b.child.kill("SIGHUP")
        expect((yield* eventually(keysOf("carol"), (keys: Any) => keys.length === 0, 30_000)).length).toBe(0)
        expect((yield* eventually(keysOf("bob"), (keys: Any) => keys.length === 0, 30_000)).length).toBe(0)
        expect(yield* keysOf("alice")).toHaveLength(1)
        const gone = yield* call(b.url, carol, "svc_list", { resource_type: "stack" })
        expect(gone.status).toBe(403)
        expect(yield* keysOf("carol")).toHaveLength(0)
        // Carol's service user is disabled; the audit has her revocation and the refusal of her call.
        expect((yield* user("carol")).enabled).toBe(false)
        const audits = () =>
          ["a", "b"].map((r) => Fs.readFileSync(Path.join(folder, `audit-${r}.log`), "utf8")).join("\n")
        // Written as the reload ends, which may be after her key is gone: waited for, not read once.
        const reload = new RegExp(`"who":"oauth:${email("carol")}".*"tool":"SVC_MCP_IDENTITIES reload".*"outcome":"ok"`)
        expect(yield* eventually(Effect.sync(audits), (text: string) => reload.test(text), 30_000)).toMatch(reload)
        expect(Fs.readFileSync(Path.join(folder, "audit-b.log"), "utf8")).toMatch(
          new RegExp(`"who":"oauth:${email("carol")}".*"outcome":"refused".*"status":403.*has no entry`),
        )
        // Bob's next call mints anew with his new grant: every stack.
        const stacks = json(yield* call(b.url, bobToken, "svc_list", { resource_type: "stack", fields: ["name"] }))
        expect(stacks.result.length).toBeGreaterThan(1)
      }),
    120_000,
  )

  it.scopedLive(
    "the tool list is each person's: their scopes and level, in both eras, cached per person",
    () =>
      Effect.gen(function* () {
        const { a, token, folder } = yield* setUp
        const names = (result: Any) => result.tools.map((tool: Any) => tool.name as string).sort()
        const readers = [
          "svc_get",
          "svc_inspect",
          "svc_list",
          "svc_list_detail",
          "svc_logs",
          "svc_search_logs",
          "svc_summary",
        ]
        // Alice may write at the service, but her token reads only: the reading tools.
        const aliceReads = yield* listed(a.url, yield* token(ALICE, "svc.read"))
        expect(names(aliceReads)).toEqual(readers)
        expect(aliceReads.cacheScope).toBe("private")
        // Carol's token writes, her level executes: the reading tools and svc_execute.
        const carol = yield* token(CAROL, "svc.write")
        expect(names(yield* listed(a.url, carol))).toEqual([...readers, "svc_execute"].sort())
        // Bob reads at the service whatever his token: the reading tools.
        const bob = yield* token(BOB, "svc.write")
        expect(names(yield* listed(a.url, bob))).toEqual(readers)
        // Alice with every scope: all thirteen, without the creations the service reserves to its admins
        // (her service user is none): a stack is hers to create, a variable, a server or a group is not.
        const aliceAll = yield* listed(a.url, yield* token(ALICE, "svc.write"))
        expect(names(aliceAll)).toHaveLength(13)
        const typesOf = (tool: string) =>
          aliceAll.tools.find((t: Any) => t.name === tool).inputSchema.properties.resource_type.enum as Array<string>
        expect(typesOf("svc_create")).toContain("stack")
        for (const reserved of [
          "variable",
          "user_group",
          "server",
          "build",
          "git_provider_account",
          "image_registry_account",
        ]) {
          expect(typesOf("svc_create")).not.toContain(reserved)
        }
        expect(typesOf("svc_copy")).toContain("stack")
        expect(typesOf("svc_copy")).not.toContain("server")
        // Bob reads at the service: his delete, which the service would refuse, is refused here, nothing asked or sent.
        const bobDeletes = yield* call(a.url, bob, "svc_delete", { resource_type: "tag", params: { id: "x" } })
        expect(bobDeletes.status).toBe(200)
        expect(bobDeletes.body.result.isError).toBe(true)
        expect(JSON.stringify(bobDeletes.body.result)).toMatch(
          /has the level Read, which does not reach write\/DeleteTag/,
        )
        // The 2025 era, after initialize: the same lists.
        const legacy = yield* HttpMcp.connect(a.url, { authorization: `Bearer ${carol}` })
        const tools = yield* Effect.promise(() => legacy.listTools())
        expect(tools.tools.map((tool) => tool.name).sort()).toEqual([...readers, "svc_execute"].sort())
        // A call beyond the token's scope is still refused at the gate, nothing minted for it.
        const denied = yield* call(a.url, yield* token(ALICE, "svc.read"), "svc_delete", {
          resource_type: "tag",
          params: { id: "x" },
        })
        expect(denied.status).toBe(403)
        // The audit has the refusal, with whom and why.
        expect(Fs.readFileSync(Path.join(folder, "audit-a.log"), "utf8")).toMatch(
          new RegExp(
            `"who":"oauth:${email("alice")}","tool":"svc_delete","outcome":"refused","sent":false,"kind":"InsufficientScope","status":403`,
          ),
        )
      }),
    60_000,
  )

  it.scopedLive(
    "without a store: a restart mints again and deletes the old key; a refused key is minted again; people lists and revokes; credentials that cannot mint: 503, check and the start say so",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const admin = Sandbox.asAdmin(sandbox)
        const as = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE] })
        const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-mint-alone-"))
        const identities = Path.join(folder, "identities.json")
        writeIdentities(identities, { [email("alice")]: GRANTS[email("alice")] })
        const env = (key: { key: string; secret: string }) => ({
          SVC_URL: sandbox.url,
          SVC_API_KEY: key.key,
          SVC_API_SECRET: key.secret,
          SVC_MCP_OAUTH_ISSUER: as.issuer,
          SVC_MCP_PUBLIC_URL: PUBLIC,
          SVC_MCP_IDENTITIES: identities,
          SVC_GUARD: "off",
          SVC_AUDIT_LOG: Path.join(folder, "audit.log"),
        })
        const alice = yield* Effect.promise(() => as.clientToken(ALICE, "svc.write"))
        const keys = Effect.flatMap(admin.ok("read/FindUser", { username: userOf("alice") }), (u) =>
          admin.ok("read/ListApiKeysForServiceUser", { user: u._id.$oid }),
        )
        const first = yield* Spawn.serveHttp(env(sandbox.apiKey))
        json(yield* call(first.url, alice, "svc_list", { resource_type: "tag" }))
        const [before] = yield* keys
        first.child.kill("SIGKILL")
        yield* Effect.promise(() => first.exited)
        // After a restart: minted again, and the key the dead process held deleted at the service.
        const server = yield* Spawn.serveHttp(env(sandbox.apiKey))
        json(yield* call(server.url, alice, "svc_list", { resource_type: "tag" }))
        const after = yield* keys
        expect(after).toHaveLength(1)
        expect(after[0].key).not.toBe(before.key)
        // A key the service refuses (deleted behind the server's back) is minted again, and the call goes through.
        yield* admin.ok("write/DeleteApiKeyForServiceUser", { key: after[0].key })
        json(yield* call(server.url, alice, "svc_list", { resource_type: "tag" }))
        const again = yield* keys
        expect(again).toHaveLength(1)
        expect(again[0].key).not.toBe(after[0].key)

        // people: who holds a key, and its age, on stdout; revoke: deleted, the service user disabled.
        const listedPeople = yield* Spawn.run(env(sandbox.apiKey), ["people"])
        expect(listedPeople.code).toBe(0)
        expect(listedPeople.stdout).toMatch(new RegExp(`"${email("alice")}"  as "${userOf("alice")}"  key \\d+s old`))
        // A name the service has no user for: nothing revoked, exit 1, and it says so.
        const unknown = yield* Spawn.run(env(sandbox.apiKey), ["people", "revoke", "carol"])
        expect(unknown.code).toBe(1)
        expect(unknown.stderr).toContain('the service has no user "svc-mcp:carol"')
        const revoked = yield* Spawn.run(env(sandbox.apiKey), ["people", "revoke", email("alice")])
        expect(revoked.code, revoked.stderr).toBe(0)
        expect(revoked.stderr).toContain(`revoked 1 key(s) of "${email("alice")}"`)
        expect(yield* keys).toHaveLength(0)
        // Her next call: the held key is refused, minting again is refused too: a clear error.
        const refused = yield* call(server.url, alice, "svc_list", { resource_type: "tag" })
        expect(refused.body.result.isError).toBe(true)
        expect(JSON.stringify(refused.body.result)).toContain("is disabled (revoked)")
        expect(yield* keys).toHaveLength(0)
        // And the one after: 403, not a 503 to try again forever.
        const forbidden = yield* call(server.url, alice, "svc_list", { resource_type: "tag" })
        expect(forbidden.status).toBe(403)
        expect(forbidden.body.error.message).toContain("is disabled (revoked)")
        // A second revoke finds no key: exit 1, saying so. The listing shows her revoked.
        const twice = yield* Spawn.run(env(sandbox.apiKey), ["people", "revoke", email("alice")])
        expect(twice.code).toBe(1)
        expect(twice.stderr).toContain("held no minted key")
        const afterwards = yield* Spawn.run(env(sandbox.apiKey), ["people"])
        expect(afterwards.stdout).toContain(`"${email("alice")}"  as "${userOf("alice")}"  no key  disabled (revoked)`)
        // The audit has the revocation (the command's) and the refusal (the server's).
        const audit = Fs.readFileSync(Path.join(folder, "audit.log"), "utf8")
        expect(audit).toMatch(new RegExp(`"who":"oauth:${email("alice")}".*"tool":"svc-mcp people revoke".*revoked 1`))
        expect(audit).toMatch(new RegExp(`"who":"oauth:${email("alice")}".*"outcome":"refused".*"status":403.*revoked`))

        // An admin enables her service user again at the service.
        const user = yield* admin.ok("read/FindUser", { username: userOf("alice") })
        yield* admin.ok("write/UpdateUserBasePermissions", { user_id: user._id.$oid, enabled: true })
        // Credentials that are not an admin's: the call is answered 503 with the reason; check and the start say so.
        const viewer = sandbox.viewer.apiKey
        const unable = yield* Spawn.serveHttp(env(viewer))
        const unminted = yield* call(unable.url, alice, "svc_list", { resource_type: "tag" })
        expect(unminted.status).toBe(503)
        expect(unminted.body.error.message).toContain(`no service key could be minted for "${email("alice")}"`)
        expect(unminted.body.error.message).toContain("admin-only")
        yield* eventually(
          Effect.sync(() => unable.stderr()),
          (text) => text.includes("minted keys: the server's credentials"),
        )
        expect(unable.stderr()).toContain("minted keys: the server's credentials")
        const checked = yield* Spawn.run(env(viewer), ["check"])
        expect(checked.code).toBe(1)
        expect(checked.stderr).toContain("[fail] mint     the server's credentials")
        const checkedAdmin = yield* Spawn.run(env(sandbox.apiKey), ["check"])
        expect(checkedAdmin.stderr).toContain("[ok  ] mint     the server's credentials are an admin's")
        // A level the service does not know: the start refuses it in one line, exit 2.
        writeIdentities(identities, { [email("alice")]: { mint: { level: "Admin" } } })
        const { SVC_AUDIT_LOG: _kept, ...unaudited } = env(sandbox.apiKey)
        const bad = yield* Spawn.run(unaudited, ["--http-port", "0"])
        expect(bad.code).toBe(2)
        expect(bad.stderr.trim().split("\n")).toHaveLength(1)
        expect(bad.stderr).toContain('mint.level is "Admin", a level the service does not know')
        // No key or secret the service made is in any answer or line the servers wrote.
        for (const key of sandbox.world.apiKeys) {
          expect(server.stderr() + unable.stderr() + listedPeople.stderr).not.toContain(key.secret)
        }
      }),
    90_000,
  )
})
