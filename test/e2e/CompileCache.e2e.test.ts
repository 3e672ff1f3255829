/**
 * The executable's start on Node's own compile cache (src/Cli/Start.ts), on a copy of
 * the built package in a directory of its own: on Node 22 and later the first start
 * writes the cache and the next ones use it as it is; on Node 20, which has none, the
 * server runs without. A corrupt cache, an old build's cache or a directory it cannot
 * write to never stops a start.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { BESIDE } from "../../src/Cli/Start.js"
import * as Definitions from "../../src/Tools/Catalog/Definitions.js"
import * as NodeRuntimes from "../support/NodeRuntimes.js"
import * as Spawn from "../support/Spawn.js"
import { until } from "../support/Wait.js"

const ROOT = Path.resolve(Path.dirname(import.meta.dirname), "..")
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-cache-"))
afterAll(() => Fs.rmSync(work, { recursive: true, force: true }))

interface Installed {
  readonly dist: string
  readonly home: string
}

/** The executable and the service's definitions, as the package lays them out, and a home of its own. */
const install = (name: string): Installed => {
  const root = Path.join(work, name)
  const dist = Path.join(root, "dist")
  Fs.mkdirSync(dist, { recursive: true })
  Fs.copyFileSync(Path.join(ROOT, "dist/svc-mcp.js"), Path.join(dist, "svc-mcp.js"))
  Fs.cpSync(Path.join(ROOT, "dist/svc-mcp"), Path.join(dist, "svc-mcp"), { recursive: true })
  Fs.mkdirSync(Path.join(root, "spec"))
  Fs.copyFileSync(Path.join(ROOT, "spec/service-api.schema.json"), Path.join(root, "spec/service-api.schema.json"))
  const home = Path.join(root, "home")
  Fs.mkdirSync(home)
  return { dist, home }
}

/** Every cache file under `dir`, with what tells a rewritten file from the same one. */
const cacheFiles = (dir: string): Record<string, { ino: number; mtimeMs: number; size: number }> => {
  if (!Fs.existsSync(dir)) return {}
  const found: Record<string, { ino: number; mtimeMs: number; size: number }> = {}
  for (const file of Fs.readdirSync(dir, { recursive: true }) as Array<string>) {
    // A server still running writes each entry to a temporary file beside it, then renames it:
    // such a file may be gone by the time it is looked at, and is not the cache.
    const stat = Fs.statSync(Path.join(dir, file), { throwIfNoEntry: false })
    if (stat?.isFile() === true && !Path.basename(file).includes(".")) {
      found[file] = { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size }
    }
  }
  return found
}

const cacheBytes = (dir: string) => Object.values(cacheFiles(dir)).reduce((sum, file) => sum + file.size, 0)

/** Starts the installed server on the sandbox, lists its tools, and keeps it running while `during` runs. */
const serve = <A>(installed: Installed, node: string, during: Effect.Effect<A>) =>
  Effect.gen(function* () {
    const { client } = yield* Spawn.connect(
      { HOME: installed.home, TMPDIR: installed.home },
      ["--sandbox"],
      [node, Path.join(installed.dist, "svc-mcp.js")],
    )
    const { tools } = yield* Effect.promise(() => client.listTools())
    expect(tools.map((tool) => tool.name)).toEqual(Definitions.all.map((tool) => tool.name))
    return yield* during
  }).pipe(Effect.scoped)

/**
 * Long enough for a start that found no usable cache to have written one: it does a second after it
 * turned the cache on, which was before it loaded the program that has answered by now.
 */
const outlastWrite = Effect.sleep("1 second")

/** Node 20, the machine's or fetched as the others are. */
const NODE20 = process.versions.node.startsWith("20.") ? process.execPath : NodeRuntimes.node("20.20.2")
const NODE22 = NodeRuntimes.node(NodeRuntimes.NODE22_VERSION)
const NODE24 = NodeRuntimes.node(NodeRuntimes.NODE24_VERSION)

describe.each([
  { version: NodeRuntimes.NODE22_VERSION, node: NODE22 },
  { version: NodeRuntimes.NODE24_VERSION, node: NODE24 },
])("the compile cache on Node $version", ({ version, node }) => {
  it.live("is written beside the bundle by the first start, and used as it is by the next", () =>
    Effect.gen(function* () {
      const installed = install(`first-${version}`)
      const cache = Path.join(installed.dist, BESIDE)
      yield* serve(
        installed,
        node,
        until(() => cacheBytes(cache) > 500_000, 10_000),
      )
      const written = cacheFiles(cache)
      // One directory for the build, one in it for this Node (Node's own layout), the program's modules in that.
      expect(Object.keys(written).length).toBeGreaterThan(0)
      const layoutOf = new RegExp(`^build-[0-9a-f]{16}/v${version}-${process.arch}-`)
      expect(Object.keys(written).every((file) => layoutOf.test(file))).toBe(true)

      yield* serve(installed, node, outlastWrite)
      // A cache V8 refused would have been written again.
      expect(cacheFiles(cache)).toEqual(written)
      expect(Fs.readdirSync(installed.home)).toEqual([])
    }),
  )
})

describe("the compile cache, when a start cannot use it as it is", () => {
  it.live("Node 20 has none: the server runs without, and writes nothing", () =>
    Effect.gen(function* () {
      const installed = install("node20")
      yield* serve(installed, NODE20, outlastWrite)
      expect(Fs.readdirSync(installed.dist).sort()).toEqual(["svc-mcp", "svc-mcp.js"])
      expect(Fs.readdirSync(installed.home)).toEqual([])
    }),
  )

  for (const { which, node, name } of [
    { which: "Node 22", node: NODE22, name: "corrupt-node22" },
    { which: "Node 24", node: NODE24, name: "corrupt-node24" },
  ]) {
    it.live(`a corrupt cache is ignored, and written again (${which})`, () =>
      Effect.gen(function* () {
        const installed = install(name)
        const cache = Path.join(installed.dist, BESIDE)
        yield* serve(
          installed,
          node,
          until(() => cacheBytes(cache) > 500_000, 10_000),
        )
        const files = Object.keys(cacheFiles(cache))
        for (const file of files) Fs.writeFileSync(Path.join(cache, file), Buffer.alloc(4096, 0x5a))

        yield* serve(
          installed,
          node,
          until(() => cacheBytes(cache) > 500_000, 10_000),
        )
        expect(Object.keys(cacheFiles(cache)).sort()).toEqual(files.sort())
      }),
    )
  }

  it.live("a new build's first start removes the caches of the builds before it", () =>
    Effect.gen(function* () {
      const installed = install("upgraded")
      const old = Path.join(installed.dist, BESIDE, "build-0123456789abcdef", "v24.0.0-x64-0-0")
      Fs.mkdirSync(old, { recursive: true })
      Fs.writeFileSync(Path.join(old, "00000000"), "an old build's code")
      const cache = Path.join(installed.dist, BESIDE)
      yield* serve(
        installed,
        NODE24,
        until(() => cacheBytes(cache) > 500_000, 10_000),
      )
      expect(Fs.readdirSync(cache)).toHaveLength(1)
      expect(Fs.readdirSync(cache)[0]).not.toBe("build-0123456789abcdef")
    }),
  )

  it.live("beside a bundle it cannot write to, it lives in the user's cache directory, the user's alone", () =>
    Effect.gen(function* () {
      const installed = install("read-only")
      // Its own name taken by a file (root writes through a mode), and the directory made read-only.
      Fs.writeFileSync(Path.join(installed.dist, BESIDE), "taken")
      Fs.chmodSync(installed.dist, 0o555)

      const userCache = Path.join(installed.home, ".cache", "svc-mcp")
      yield* serve(
        installed,
        NODE24,
        until(() => cacheBytes(userCache) > 500_000, 10_000),
      )
      expect(Fs.statSync(userCache).mode & 0o777).toBe(0o700)
      expect(Fs.readdirSync(installed.dist).sort()).toEqual([BESIDE, "svc-mcp", "svc-mcp.js"])
      const written = cacheFiles(userCache)

      yield* serve(installed, NODE24, outlastWrite)
      expect(cacheFiles(userCache)).toEqual(written)
    }).pipe(Effect.ensuring(Effect.sync(() => Fs.chmodSync(Path.join(work, "read-only", "dist"), 0o755)))),
  )
})
