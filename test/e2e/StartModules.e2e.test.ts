/**
 * What a start loads of Node's own modules, on the built executable serving over
 * stdio up to its `tools/list` answer: neither node:crypto (loaded by the first
 * confirmation or refused key) nor node:fs's promises (which an ES import of
 * node:fs evaluates, and with them readline). Each costs a start milliseconds
 * that the bare SDK server does not pay. And what a start loads of the program (dist/start.json,
 * written by the bundle from esbuild's own account): within a budget of bytes, and none of what
 * only other commands, the HTTP mode, telemetry or the calls use.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as NodeRuntimes from "../support/NodeRuntimes.js"

const ROOT = Path.resolve(Path.dirname(import.meta.dirname), "..")
// Run before the program, it reports at the exit which built-in modules the process loaded.
const REPORT = `data:text/javascript,${encodeURIComponent(
  'process.on("exit", () => process.stderr.write("LOADED " + JSON.stringify(process.moduleLoadList) + "\\n"))',
)}`

const loadedByStart = (node: string): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.spawn(node, ["--import", REPORT, Path.join(ROOT, "dist/svc-mcp.js")], {
      env: { PATH: process.env.PATH ?? "", SVC_URL: "http://127.0.0.1:9", SVC_API_KEY: "k", SVC_API_SECRET: "s" },
      stdio: ["pipe", "pipe", "pipe"],
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
      if (out.includes('"id":2')) child.stdin.end()
    })
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("error", reject)
    child.on("close", () => {
      const line = err.split("\n").find((l) => l.startsWith("LOADED "))
      if (line === undefined) return reject(new Error(`no report; stderr: ${err}`))
      resolve(JSON.parse(line.slice("LOADED ".length)) as ReadonlyArray<string>)
    })
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
  })

const NODE20 = process.versions.node.startsWith("20.")
  ? process.execPath
  : NodeRuntimes.node(NodeRuntimes.NODE20_VERSION)

describe("a start", () => {
  for (const version of NodeRuntimes.TESTED) {
    const node = NodeRuntimes.node(version)
    it(`on Node ${version} serves tools/list without loading node:crypto, node:fs's promises or readline`, async () => {
      const loaded = await loadedByStart(node)
      // The report itself works: the modules any start needs are in it.
      expect(loaded).toContain("NativeModule fs")
      expect(loaded).toContain("NativeModule module")
      for (const module of ["crypto", "internal/fs/promises", "internal/readline/interface"]) {
        expect(loaded).not.toContain(`NativeModule ${module}`)
      }
    })
  }

  // Node 20's own module loader reads files with node:fs's promises: only node:crypto is ours to spare there.
  it("on Node 20 serves tools/list without loading node:crypto", async () => {
    const loaded = await loadedByStart(NODE20)
    expect(loaded).toContain("NativeModule fs")
    expect(loaded).not.toContain("NativeModule crypto")
  })
})

/**
 * The bytes of JavaScript a start reads and compiles before its first `tools/list`: 983 KB when
 * set (971 KB before the audit's writer, the store's client and telemetry's hooks were deferred,
 * 959 KB after; then 24 KB more for the records' and the sync's glances and the new rows and plans,
 * which the call path reads synchronously), of which the SDK (with zod) was 470 KB and effect 265 KB.
 * 843 KB since the SDK's ajv (140 KB) was left out for a validator of the servers' own (Mcp/Server/SdkShims.ts)
 * and the default tools' schemas were published at build time. 751 KB since the call path (the tools'
 * programs, rendering, the confirmation) is loaded once `tools/list` is answered, or by the first call.
 * 775 KB since a start reads what it serves with: the command line through util.parseArgs (Cli/Flags.ts),
 * each person's tool list and minted grant (Mcp/Server/Listing.ts, Mint/Shape.ts, Settings/Mint.ts),
 * the access changes the policy keeps away (Tools/Policy/AccessEndpoints.ts), the bounded maps the
 * names and the guard keep (Shared/ExpiringMap.ts), log lines on one line (Shared/Controls.ts) and the
 * client's reading of a cut answer (Service/CutJson.ts): 753 KB before them, 770.5 KB with them.
 * 778 KB since the patterns take the class destructive, which every policy matches with
 * (Tools/Catalog/Classes.ts and the stops it names in Tables.ts), a pattern's "did you mean"
 * (Shared/Closest.ts), and --help lists (777 KB with them; a variable no setting reads is named by
 * a module loaded only then).
 * 790 KB since a start also reads: the patterns naming what a call touches (Settings/Touches.ts),
 * identities by issuer and the bound on new people a minute (Settings/Identities.ts, Mint.ts), the
 * secret pages' store and server that the tools' bundle provides (Confirmation/SecretPages.ts,
 * SecretPageServer.ts, whose port opens with the first page), the previews' and the classes'
 * tables (Tables.ts), and `people`'s help: 788.7 KB with them.
 * 782 KB since the help and the variables' list it prints (Cli/Help.ts, Variables.ts) are loaded
 * when help is asked for, and `check` when it runs (Cli/CheckCommand.ts): 781.0 KB.
 * 784 KB since `from_person` is in two tools' schemas (Tool.ts, published ahead) and the secret
 * pages' server routes a form to its page (SecretPageServer.ts; the form's store and page, and the
 * call's steps, TakeIn.ts, load with the first form).
 * 786.5 KB since the tools' tables read the one table of kinds (Kinds/Kinds.ts, with its batches)
 * and a glance's questions (Records/Questions.ts) and the keys another tool uses (KeyAliases.ts)
 * come with the tools: 785.9 KB with them.
 * 787 KB since the tools' bundle provides the pattern reader (Shared/PatternReader.ts: its Tag and
 * a pool that loads its workers' code, Shared/PatternWorkers.ts, with the first pattern that needs
 * it): 786.6 KB with it.
 * Raise it only with a reason.
 */
const START_BYTES = 787_000

/** What a start must not load: each is loaded by the command, the mode, the setting or the first call that uses it. */
const NOT_AT_START = [
  /^src\/Audit\//,
  /^src\/Operations\/AuditOpen\.ts$/,
  /^src\/Store\/(Redis|Connection)\.ts$/,
  /^src\/Operations\/Telemetry(Hooks|Sdk)\.ts$/,
  /^src\/Sandbox\//,
  /^src\/View\/App\//,
  /^src\/Mcp\/Http\//,
  /^src\/Diagnosis\//,
  /^src\/Cli\/(Setup|Help|Variables|CheckCommand)\.ts$/,
  /^src\/Mcp\/Calls\/(ToolCall|Router|Confirm)\.ts$/,
  /^src\/Tools\/(Invoke|Render|View)\.ts$/,
  /^src\/Tools\/Lists\/(Glance|Projections)\.ts$/,
  /^src\/Tools\/Records\/RecordViews\.ts$/,
  /^src\/Shared\/PatternWorkers\.ts$/,
  /node_modules\/re2js\//,
  /node_modules\/undici\//,
  /node_modules\/@opentelemetry\//,
  /node_modules\/@effect\/opentelemetry\//,
  /node_modules\/jose\//,
  /node_modules\/@redis\//,
  /node_modules\/ajv\//,
  /node_modules\/@modelcontextprotocol\/server\/dist\/ajvProvider/,
]

describe("what a start loads of the program", () => {
  const start = JSON.parse(Fs.readFileSync(Path.join(ROOT, "dist/start.json"), "utf8")) as {
    readonly bytes: number
    readonly files: ReadonlyArray<string>
    readonly inputs: ReadonlyArray<string>
  }

  it(`is within ${START_BYTES} bytes, the entry and the chunks it imports statically`, () => {
    expect(start.files).toContain("svc-mcp/main.js")
    const bytes = start.files.reduce((sum, file) => sum + Fs.statSync(Path.join(ROOT, "dist", file)).size, 0)
    expect(bytes).toBe(start.bytes)
    expect(bytes).toBeLessThanOrEqual(START_BYTES)
  })

  it("holds none of the call path, the sandbox, the fleet view's page, the HTTP mode, check, setup, the audit's writer, the store's client, telemetry, the client or ajv", () => {
    expect(start.inputs).toContain("src/Tools/Policy/Policy.ts")
    for (const pattern of NOT_AT_START) {
      expect(
        start.inputs.filter((input) => pattern.test(input)),
        String(pattern),
      ).toEqual([])
    }
  })
})
