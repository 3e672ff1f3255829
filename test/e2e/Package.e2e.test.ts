/**
 * What users install is what is tested: the package is packed as `npm pack`
 * makes it, installed from the tarball with `npm install -g` into a temporary
 * prefix, and the installed command is run and used over stdio.
 *
 * It packs the build that `npm test` made before the tests (`--ignore-scripts`
 * skips prepack's second build, which would rewrite dist/ under the other
 * tests). `npm publish --dry-run` makes the same tarball. Published to a registry
 * on 127.0.0.1 (test/support/NpmRegistry.ts), the package runs as `npx -y svc-mcp`,
 * and its setup prints that form. Dependencies come from npm's cache (`--prefer-offline`): once the
 * cache holds their metadata (after a first run), no network is used; on a
 * cold cache, npm fetches it from the registry.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Url from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { VERSION } from "../../src/Shared/Version.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as NpmRegistry from "../support/NpmRegistry.js"
import * as Spawn from "../support/Spawn.js"

const ROOT = Path.resolve(Path.dirname(import.meta.dirname), "..")
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-package-"))
const prefix = Path.join(work, "prefix")
const installed = Path.join(prefix, "bin", "svc-mcp")
// npm's own settings pass through (npm test sets them to the ones in effect), so the install uses the same
// cache; so does the way to the registry (a proxy, and the CA that signs its certificates): without it a
// dependency missing from the cache is fetched, refused and retried until the hook's time-out.
const npmEnv: Record<string, string> = { HOME: Os.homedir() }
const passed = ["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]
const network = ["cafile", "ca", "proxy", "https_proxy", "noproxy", "strict_ssl"].map((name) => `npm_config_${name}`)
const proxies = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"].flatMap((name) => [name, name.toLowerCase()])
for (const name of [...passed, ...network, ...proxies, "NODE_EXTRA_CA_CERTS"]) {
  const value = process.env[name]
  if (value !== undefined) npmEnv[name] = value
}

interface Packed {
  readonly filename: string
  readonly integrity: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}
let packed: Packed

// At the lowest priority: the install is the heaviest step of the suite, and the tests running beside
// it measure their own time-outs.
const npm = (args: ReadonlyArray<string>) =>
  Effect.runPromise(Spawn.runCommand("nice", ["-n", "19", "npm", ...args], { cwd: ROOT, env: npmEnv })).then(
    (finished) => {
      if (finished.code !== 0) throw new Error(`npm ${args.join(" ")} failed (${finished.code}): ${finished.stderr}`)
      return finished.stdout
    },
  )

beforeAll(async () => {
  if (!Fs.existsSync(Spawn.ENTRY)) throw new Error("dist/ is missing: npm test builds it first (npm run build)")
  const [result] = JSON.parse(await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work]))
  packed = result
  await npm([
    "install",
    "--global",
    "--prefix",
    prefix,
    Path.join(work, packed.filename),
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ])
}, 300_000)

// Thousands of files (the prefix's dependencies): removed without blocking the worker, which reports to vitest meanwhile.
afterAll(() => Fs.promises.rm(work, { recursive: true, force: true }), 120_000)

const sources = new Set(
  (Fs.readdirSync(Path.join(ROOT, "src"), { recursive: true }) as Array<string>)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.split(Path.sep).join("/").replace(/\.ts$/, "")),
)

describe("the packed package", () => {
  it("holds only what runs: the executable and its modules, the library and its types, the service definitions, README, LICENSE", () => {
    const files = packed.files.map((file) => file.path)
    // Beside the library compiled from src/, the package holds these and nothing else.
    const named = [
      "package.json",
      "README.md",
      "LICENSE",
      "spec/service-api.schema.json",
      "spec/service-api-all.schema.json",
      "dist/svc-mcp.js",
      "dist/svc-mcp/main.js",
      // The fleet view's page (scripts/build-view.mjs), read by the first resources/read.
      "dist/fleet-view.js",
    ]
    for (const needed of [...named, "dist/index.js", "dist/index.d.ts"]) {
      expect(files).toContain(needed)
    }
    // The program's modules beside main.js (dist/svc-mcp/), as the bundler splits them, and no cache.
    const chunk = /^dist\/svc-mcp\/[\w-]+\.js$/
    expect(files.filter((file) => chunk.test(file)).sort()).toEqual(
      Fs.readdirSync(Path.join(ROOT, "dist", "svc-mcp"))
        .map((file) => `dist/svc-mcp/${file}`)
        .sort(),
    )
    const stray = files.filter((file) => {
      if (named.includes(file) || chunk.test(file)) return false
      const compiled = /^dist\/(.+)\.(js|d\.ts)$/.exec(file)
      return compiled === null || !sources.has(compiled[1] as string)
    })
    expect(stray).toEqual([])
  })

  it.live("is what npm publish would publish: the same files, the same tarball", () =>
    Effect.gen(function* () {
      const dryRun = yield* Effect.promise(() =>
        npm(["publish", "--dry-run", "--json", "--ignore-scripts", "--offline", "--loglevel=error"]),
      )
      const published: Packed = JSON.parse(dryRun)["svc-mcp"]
      expect(published.files.map((file) => file.path)).toEqual(packed.files.map((file) => file.path))
      expect(published.filename).toBe(packed.filename)
      expect(published.integrity).toBe(packed.integrity)
    }),
  )

  it("declares a license that its LICENSE file states", () => {
    const pkg = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8"))
    expect(pkg.license).toBe("MIT")
    expect(Fs.readFileSync(Path.join(ROOT, "LICENSE"), "utf8")).toMatch(
      /^MIT License\n\nCopyright \(c\) \d{4} svc-mcp contributors\n/,
    )
  })
})

describe("the package installed from its tarball", () => {
  it.live("runs as the svc-mcp command: --version", () =>
    Effect.gen(function* () {
      expect(Fs.realpathSync(installed)).toBe(Path.join(prefix, "lib", "node_modules", "svc-mcp", "dist", "svc-mcp.js"))
      const finished = yield* Spawn.runCommand(installed, ["--version"])
      expect(finished.code).toBe(0)
      expect(finished.stderr.trim()).toBe(VERSION)
    }),
  )

  it.live("has its library's runtime dependencies resolved", () =>
    Effect.gen(function* () {
      const library = Url.pathToFileURL(Path.join(prefix, "lib", "node_modules", "svc-mcp", "dist", "index.js"))
      const finished = yield* Spawn.runCommand(process.execPath, [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(library.href)}); process.stderr.write(m.VERSION)`,
      ])
      expect(finished.stderr).toBe(VERSION)
      expect(finished.code).toBe(0)
    }),
  )

  it.scopedLive("prints a setup naming the installed command, which serves the sandbox's tools over stdio", () =>
    Effect.gen(function* () {
      const setup = yield* Spawn.runCommand(installed, ["setup", "cursor", "--sandbox"])
      expect(setup.code).toBe(0)
      const entry = JSON.parse(setup.stdout).mcpServers["svc-sandbox"]
      expect(entry).toEqual({ command: installed, args: ["--sandbox"] })

      const { client } = yield* Spawn.connect({}, [], [entry.command, ...entry.args])
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))
      const servers = yield* Effect.promise(() =>
        client.callTool({ name: "svc_list", arguments: { resource_type: "server" } }),
      )
      expect(servers.isError).toBeFalsy()
    }),
  )
})

describe("the package from a registry, as npx runs it", () => {
  const pkg = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8"))
  const manifest = {
    name: pkg.name,
    version: pkg.version,
    bin: pkg.bin,
    dependencies: pkg.dependencies,
    peerDependencies: pkg.peerDependencies,
    engines: pkg.engines,
  }
  const cache = npmEnv.npm_config_cache ?? Path.join(Os.homedir(), ".npm")
  const npxDirs = () => new Set(Fs.existsSync(Path.join(cache, "_npx")) ? Fs.readdirSync(Path.join(cache, "_npx")) : [])

  it.scopedLive(
    "npx -y svc-mcp setup prints npx -y svc-mcp, which serves the sandbox's tools over stdio",
    () =>
      Effect.gen(function* () {
        const upstream = process.env.npm_config_registry ?? "https://registry.npmjs.org/"
        const registry = yield* NpmRegistry.publish(Path.join(work, packed.filename), manifest, upstream)
        const noproxy = [npmEnv.npm_config_noproxy, npmEnv.NO_PROXY, "127.0.0.1"].filter((v) => v !== undefined)
        // As the install above: the dependencies' metadata from npm's cache where it holds them (the install
        // put them there), not asked of the registry again for each of npx's four starts.
        const env = {
          ...npmEnv,
          npm_config_registry: registry.url,
          npm_config_noproxy: noproxy.join(","),
          npm_config_prefer_offline: "true",
        }
        // npx installs into npm's cache (_npx/<hash>): what this test installs there goes with it.
        const before = npxDirs()
        yield* Effect.addFinalizer(() =>
          Effect.promise(() =>
            Promise.all(
              [...npxDirs()]
                .filter((dir) => !before.has(dir))
                .map((dir) => Fs.promises.rm(Path.join(cache, "_npx", dir), { recursive: true, force: true })),
            ),
          ),
        )

        const npx = (...args: Array<string>) =>
          Spawn.runCommand("nice", ["-n", "19", "npx", "-y", "svc-mcp", ...args], { env, cwd: work })
        // The README's two commands, then the configuration a file-configured client takes.
        const version = yield* npx("--version")
        expect(version.stderr.trim().split("\n").at(-1)).toBe(VERSION)
        expect(version.code).toBe(0)
        const claude = yield* npx("setup", "claude-code")
        expect(claude.stdout).toMatch(/^claude mcp add --scope user svc \\\n[\s\S]* \\\n {2}-- npx -y svc-mcp\n$/)
        const setup = yield* npx("setup", "cursor", "--sandbox")
        expect(setup.stderr).toContain(`svc-mcp@${VERSION}`)
        expect(setup.code).toBe(0)
        const entry = JSON.parse(setup.stdout).mcpServers["svc-sandbox"]
        expect(entry).toEqual({ command: "npx", args: ["-y", "svc-mcp", "--sandbox"] })
        // Resolved by the registry; the tarball itself may come from npm's cache, which keys it by its integrity.
        expect(registry.requests).toContain("/svc-mcp")

        const { client } = yield* Spawn.connect(env, [], [entry.command, ...entry.args])
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))
      }),
    300_000,
  )
})
