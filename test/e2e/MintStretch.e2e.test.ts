/**
 * Minted identities that cannot be stretched, over HTTP: the built server in
 * front of the sandbox, with tokens from real stand-in issuers (oidc-provider).
 * A person at a second issuer whose email is alice's does not get alice's entry
 * (an identity is its issuer and its claim); bob, whose grant is Write on one
 * sync, cannot change who may do what through the sync's files and its run, in
 * full mode with every endpoint in reach, and so gains nothing beyond his grant;
 * a call in flight when SIGHUP removes the person mints them no key.
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as SandboxServer from "../../src/Sandbox/Server.js"
import * as AuthServer from "../support/AuthServer.js"
import * as HttpMcp from "../support/HttpMcp.js"
import * as Sandbox from "../support/Sandbox.js"
import * as Servers from "../support/Servers.js"
import * as Spawn from "../support/Spawn.js"

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON-RPC answers field by field
type Any = any

const client = (id: string) => ({ id, secret: `${id}-client-secret-0123456789` })
const ALICE = client("alice")
const BOB = client("bob")
const PUBLIC = "http://svc-mcp.stretch.test"
const META = HttpMcp.modernMeta("mint-stretch-test")
const email = AuthServer.emailOf

/**
 * A proxy in front of the sandbox that holds the first request `held` names until one `releases`
 * names arrives: a call kept in flight until something else reaches the service.
 */
const holdingProxy = (
  target: string,
  held: (path: string, body: string) => boolean,
  releases: (path: string) => boolean,
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let release: (() => void) | undefined
      let holding = false
      let onHeld: () => void = () => {}
      const held$ = new Promise<void>((resolve) => {
        onHeld = resolve
      })
      let released = false
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const body = Buffer.concat(chunks)
          const forward = () =>
            fetch(`${target}${req.url}`, {
              method: req.method ?? "POST",
              headers: Object.fromEntries(
                Object.entries(req.headers).flatMap(([k, v]) =>
                  typeof v === "string" && k !== "host" && k !== "content-length" ? [[k, v]] : [],
                ),
              ),
              ...(req.method === "GET" ? {} : { body }),
            }).then(async (answer) => {
              res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
              res.end(Buffer.from(await answer.arrayBuffer()))
            })
          if (!holding && held(req.url ?? "", body.toString("utf8"))) {
            holding = true
            release = () => void forward()
            onHeld()
            return
          }
          if (holding && !released && releases(req.url ?? "")) {
            released = true
            release?.()
          }
          void forward()
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return {
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        /** Settles once the first request is held. */
        held: held$,
        /** Whether the held request was released by the next. */
        released: () => released,
      }
    }),
    ({ server }) => Effect.promise(() => Servers.close(server)),
  )

const serve = (
  sandbox: SandboxServer.Sandbox,
  issuers: ReadonlyArray<string>,
  identities: Record<string, unknown>,
  url = sandbox.url,
) =>
  Effect.gen(function* () {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-mint-stretch-"))
    const file = Path.join(folder, "identities.json")
    Fs.writeFileSync(file, JSON.stringify({ claim: "email", identities }))
    const audit = Path.join(folder, "audit.log")
    const server = yield* Spawn.serveHttp({
      SVC_URL: url,
      SVC_API_KEY: sandbox.apiKey.key,
      SVC_API_SECRET: sandbox.apiKey.secret,
      SVC_MCP_OAUTH_ISSUER: issuers.join(","),
      SVC_MCP_PUBLIC_URL: PUBLIC,
      SVC_MCP_IDENTITIES: file,
      SVC_MODE: "full",
      SVC_REACH: "all",
      SVC_GUARD: "off",
      SVC_AUDIT_LOG: audit,
    })
    const call = (token: string, name: string, args: Record<string, unknown>) =>
      HttpMcp.modern(
        server.url,
        "tools/call",
        { name, arguments: args },
        { meta: META, headers: { authorization: `Bearer ${token}` } },
      )
    return { server, call, audit, file }
  })

describe("minted identities that cannot be stretched, over HTTP", () => {
  it.scopedLive(
    "a second issuer's person with alice's email gets no entry: 403, audited by issuer and claim, nothing minted",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const admin = Sandbox.asAdmin(sandbox)
        const first = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE] })
        const second = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE] })
        const alice = `${first.issuer}#${email("alice")}`
        const { call, audit } = yield* serve(sandbox, [first.issuer, second.issuer], {
          [alice]: { mint: { level: "Write" } },
        })
        const list = { resource_type: "tag" }
        // Alice at her own issuer: served, with a service user named for her issuer and claim.
        const own = yield* call(yield* Effect.promise(() => first.clientToken(ALICE, "svc.write")), "svc_list", list)
        expect(own.status, JSON.stringify(own.body)).toBe(200)
        expect(own.body.result.isError).toBeFalsy()
        expect((yield* admin.ok("read/FindUser", { username: `svc-mcp:${alice}` })).enabled).not.toBe(false)
        // The same email at the second issuer: no entry, no key, nothing made at the service.
        const users = sandbox.world.users.length
        const other = yield* call(yield* Effect.promise(() => second.clientToken(ALICE, "svc.write")), "svc_list", list)
        expect(other.status).toBe(403)
        expect(sandbox.world.users.length).toBe(users)
        expect(sandbox.world.users.some((u) => u.username.includes(second.issuer))).toBe(false)
        // The audit names the refused one by her issuer and claim: not alice.
        const lines = Fs.readFileSync(audit, "utf8")
        expect(lines).toContain(`"who":"oauth:${second.issuer}#${email("alice")}","tool":"sign-in","outcome":"refused"`)
      }),
    90_000,
  )

  it.scopedLive(
    "bob, Write on one sync only, in full mode: a user group through the sync's files is refused, its run too; he gains nothing",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const admin = Sandbox.asAdmin(sandbox)
        const as = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [BOB] })
        const { server, call } = yield* serve(sandbox, [as.issuer], {
          [email("bob")]: { mint: { level: "Write", targets: ["ResourceSync:estate-sync"] } },
        })
        const bob = yield* Effect.promise(() => as.clientToken(BOB, "svc.write"))
        const said = (answer: { body: Any }) => JSON.stringify(answer.body.result)
        // A user group naming his own service user, with Write on every stack, into the sync's files.
        const groups = `[[user_group]]\nname = "mine"\nusers = ["svc-mcp:${email("bob")}"]\n[user_group.all]\nStack = "Write"\n`
        const file = { sync: "estate-sync", file_path: "groups.toml", resource_path: "", contents: groups }
        const written = yield* call(bob, "svc_update", { resource_type: "sync_resource_file", params: file })
        expect(written.body.result?.isError, said(written)).toBe(true)
        expect(said(written)).toContain('declares the user groups \\"mine\\"')
        expect(said(written)).toContain("a key minted for them")
        const sync = yield* admin.ok("read/GetResourceSync", { sync: "estate-sync" })
        expect(JSON.stringify(sync.info.remote_contents ?? [])).not.toContain("groups.toml")
        // The same text in a multi-line array's trail, at the root: read by the TOML parser, refused too.
        const hidden = `tags = [\n  ["x"],\n]\nuser_group = [{ name = "mine", users = ["svc-mcp:${email("bob")}"] }]\n`
        const trail = yield* call(bob, "svc_update", {
          resource_type: "sync_resource_file",
          params: { ...file, contents: hidden },
        })
        expect(trail.body.result?.isError, said(trail)).toBe(true)
        expect(said(trail)).toContain("a key minted for them")
        // The sync's run, whose plan touches user groups: refused, nothing sent.
        const run = yield* call(bob, "svc_execute", { operation: "run_sync", params: { sync: "estate-sync" } })
        expect(run.body.result?.isError, said(run)).toBe(true)
        expect(said(run)).toContain("a key minted for them")
        // An action's run: its script would act with the service's credentials.
        const action = yield* call(bob, "svc_execute", { operation: "run_action", params: { action: "anything" } })
        expect(action.body.result?.isError, said(action)).toBe(true)
        expect(said(action)).toContain("the service's own credentials")
        // His tool list offers neither: no action's run, no access endpoint; a deploy, yes.
        const listed = yield* HttpMcp.modern(
          server.url,
          "tools/list",
          {},
          { meta: META, headers: { authorization: `Bearer ${bob}` } },
        )
        const tools = JSON.stringify(listed.body.result.tools)
        for (const selector of ["run_action", "batch_run_action", "batch_run_procedure", "api_key_for_service_user"])
          expect(tools).not.toContain(`"${selector}"`)
        expect(tools).toContain('"deploy_stack"')
        expect(tools).toContain('"sync_resource_file"')
        // He gained nothing: no group "mine", and the service refuses his deploy of stack web.
        const all = yield* admin.ok("read/ListUserGroups", {})
        expect(all.map((g: Any) => g.name)).not.toContain("mine")
        const deploy = yield* call(bob, "svc_execute", { operation: "deploy_stack", params: { stack: "web" } })
        expect(deploy.body.result?.isError, said(deploy)).toBe(true)
      }),
    90_000,
  )

  it.scopedLive(
    "a call in flight when SIGHUP removes the person mints no key: 403, no key at the service",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox.scoped()
        const as = yield* AuthServer.scoped({ resource: `${PUBLIC}/mcp`, clients: [ALICE] })
        const username = `svc-mcp:${email("alice")}`
        // Alice's first call is held where minting looks up her service user; the reload's list of users releases it.
        const proxy = yield* holdingProxy(
          sandbox.url,
          (path, body) => path === "/read/FindUser" && body.includes(username),
          (path) => path === "/read/ListUsers",
        )
        const { server, call, file } = yield* serve(
          sandbox,
          [as.issuer],
          { [email("alice")]: { mint: { level: "Write" } } },
          proxy.url,
        )
        const token = yield* Effect.promise(() => as.clientToken(ALICE, "svc.write"))
        const keys = sandbox.world.apiKeys.length
        const inFlight = yield* Effect.fork(call(token, "svc_list", { resource_type: "tag" }))
        // Her entry goes while the call waits; SIGHUP.
        yield* Effect.promise(() => proxy.held)
        Fs.writeFileSync(file, JSON.stringify({ claim: "email", identities: {} }))
        server.child.kill("SIGHUP")
        const answer = yield* inFlight.await.pipe(Effect.flatten)
        expect(proxy.released()).toBe(true)
        expect(answer.status, JSON.stringify(answer.body)).toBe(403)
        expect(JSON.stringify(answer.body)).toContain("removed")
        // No key made for her at the service; the service user her call made meanwhile, the reload disables.
        expect(sandbox.world.apiKeys).toHaveLength(keys)
        const disabled = () => sandbox.world.users.find((u) => u.username === username)?.enabled !== true
        for (let tries = 0; tries < 100 && !disabled(); tries++) yield* Effect.sleep("100 millis")
        expect(disabled()).toBe(true)
        expect(sandbox.world.apiKeys).toHaveLength(keys)
      }),
    90_000,
  )
})
