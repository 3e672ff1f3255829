/**
 * Minted identities at scale, over HTTP against the sandbox holding 8,600
 * service users (a list of users past the answer cap): a person's service
 * user is found by name, so `people revoke` revokes and a SIGHUP that removes
 * an entry disables; a `*` entry mints for at most SVC_MCP_MINT_NEW_PER_MINUTE
 * new people a minute; once `*` is removed, a SIGHUP disables the service
 * users of those it admitted, and `people` lists them.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sandboxUser } from "../../src/Sandbox/Estates/Seed.js"
import * as AuthServer from "../support/AuthServer.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Spawn from "../support/Spawn.js"
import { eventually } from "../support/Wait.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const client = (id: string) => ({ id, secret: `${id}-client-secret-0123456789` })
const [ALICE, BOB, CAROL, DAVE] = ["alice", "bob", "carol", "dave"].map(client) as [
  ReturnType<typeof client>,
  ReturnType<typeof client>,
  ReturnType<typeof client>,
  ReturnType<typeof client>,
]
const PUBLIC = "http://svc-mcp.scale.test"
const META = HttpMcp.modernMeta("mint-scale-test")
const email = AuthServer.emailOf
const userOf = (name: string) => `svc-mcp:${email(name)}`

describe("minted identities among 8,600 service users", () => {
  it.scopedLive(
    "revoke and SIGHUP find people by name; `*` mints a bounded number of new people a minute; SIGHUP disables those no longer entitled",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const admin = Sandbox.asAdmin(sandbox)
        const as = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE, BOB, CAROL, DAVE] })
        const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-mint-scale-"))
        const identities = Path.join(folder, "identities.json")
        const write = (entries: Record<string, unknown>) =>
          Fs.writeFileSync(identities, JSON.stringify({ claim: "email", identities: entries }))
        write({ [email("alice")]: { mint: { level: "Write" } }, "*": { mint: { level: "Read" } } })
        const env = {
          SVC_URL: sandbox.url,
          SVC_API_KEY: sandbox.apiKey.key,
          SVC_API_SECRET: sandbox.apiKey.secret,
          SVC_MCP_OAUTH_ISSUER: as.issuer,
          SVC_MCP_PUBLIC_URL: PUBLIC,
          SVC_MCP_IDENTITIES: identities,
          SVC_MCP_MINT_NEW_PER_MINUTE: "2",
          SVC_GUARD: "off",
        }
        const server = yield* Spawn.serveHttp(env)
        const call = (who: ReturnType<typeof client>) =>
          Effect.flatMap(
            Effect.promise(() => as.clientToken(who, "svc.read")),
            (token) =>
              HttpMcp.modern(
                server.url,
                "tools/call",
                { name: "svc_list", arguments: { resource_type: "tag" } },
                { meta: META, headers: { authorization: `Bearer ${token}` } },
              ),
          )
        const found = (name: string) => admin.ok("read/FindUser", { username: userOf(name) })
        const keysOf = (name: string) =>
          Effect.flatMap(found(name), (u: Any) => admin.ok("read/ListApiKeysForServiceUser", { user: u._id.$oid }))

        // Bob and alice are new: minted for. Carol is the third new person this minute: 503, try again.
        expect((yield* call(BOB)).status).toBe(200)
        // People minted for long ago, revoked since: the list of users passes the answer cap (about 3 MB),
        // and alice's service user, made now, stands past it.
        for (let i = 0; i < 8_600; i++) {
          const former = sandboxUser(sandbox.world, `svc-mcp:former-${i}@example.com`, false, "revoked")
          sandbox.world.users.push({ ...former, enabled: false })
        }
        expect((yield* call(ALICE)).status).toBe(200)
        const third = yield* call(CAROL)
        expect(third.status).toBe(503)
        expect(third.body.error.message).toContain("SVC_MCP_MINT_NEW_PER_MINUTE")
        expect(sandbox.world.users.some((u) => u.username === userOf("carol"))).toBe(false)
        // Alice, known now, is not new: her next call is served.
        expect((yield* call(ALICE)).status).toBe(200)

        // Her service user stands past the list's cut: revoke finds it by name.
        const revoked = yield* Spawn.run(env, ["people", "revoke", email("alice")])
        expect(revoked.code, revoked.stderr).toBe(0)
        expect(revoked.stderr).toContain(`revoked 1 key(s) of "${email("alice")}"`)
        expect(yield* keysOf("alice")).toHaveLength(0)
        expect((yield* found("alice")).enabled).toBe(false)

        // `*` goes: on SIGHUP bob, whom it admitted, has his keys deleted and his service user disabled.
        write({ [email("alice")]: { mint: { level: "Write" } } })
        server.child.kill("SIGHUP")
        const bob = yield* eventually(found("bob"), (u: Any) => u.enabled === false, 30_000, "300 millis")
        expect(bob.enabled).toBe(false)
        // The reload disables him first, so no key of his works, then deletes his keys: wait for those too.
        const left = yield* eventually(
          keysOf("bob"),
          (keys: ReadonlyArray<unknown>) => keys.length === 0,
          30_000,
          "300 millis",
        )
        expect(left).toHaveLength(0)
        // people lists those disabled, alice past the answer cap too: the list of users read whole.
        const listed = yield* Spawn.run(env, ["people"])
        expect(listed.stdout).toContain(`"${email("bob")}"  as "${userOf("bob")}"  no key  disabled (revoked)`)
        expect(listed.stdout).toContain(`"${email("alice")}"  as "${userOf("alice")}"  no key  disabled (revoked)`)
        expect(listed.stderr).not.toContain("was cut")
        expect(listed.code, listed.stderr).toBe(0)
        // Bob's next call: no entry now, 403.
        expect((yield* call(BOB)).status).toBe(403)
        for (const key of sandbox.world.apiKeys) expect(server.stderr() + listed.stdout).not.toContain(key.secret)
      }),
    240_000,
  )
})
