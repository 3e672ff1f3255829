/**
 * The executable's V8 code cache (src/Cli/CompileCache.ts), on a copy of the built
 * package in a directory of its own: the first start writes the cache, the next
 * one uses it; a corrupt cache or a directory it cannot write to never stops a
 * start. On the machine's Node and on the newest 22.x and 24.x.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CompileCache from "../src/Cli/CompileCache.js"
import * as Definitions from "../src/Tools/Definitions.js"
import * as NodeRuntimes from "./support/NodeRuntimes.js"
import * as Spawn from "./support/Spawn.js"
import { until } from "./support/Wait.js"

const ROOT = Path.resolve(import.meta.dirname, "..")
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-cache-"))
afterAll(() => Fs.rmSync(work, { recursive: true, force: true }))

interface Installed {
  readonly dist: string
  readonly home: string
}

/** The bundle, its entry and the service's definitions, as the package lays them out, and a home of its own. */
const install = (name: string): Installed => {
  const root = Path.join(work, name)
  const dist = Path.join(root, "dist")
  Fs.mkdirSync(dist, { recursive: true })
  Fs.mkdirSync(Path.join(root, "spec"))
  for (const file of ["svc-mcp.js", "svc-mcp.cjs"])
    Fs.copyFileSync(Path.join(ROOT, "dist", file), Path.join(dist, file))
  Fs.copyFileSync(Path.join(ROOT, "spec/service-api.schema.json"), Path.join(root, "spec/service-api.schema.json"))
  const home = Path.join(root, "home")
  Fs.mkdirSync(home)
  return { dist, home }
}

/** The cache files in `dir` for the Node `version` (v-prefixed). */
const caches = (dir: string, version: string): ReadonlyArray<string> =>
  Fs.existsSync(dir) ? Fs.readdirSync(dir).filter((file) => file.endsWith(`-${version}-${process.arch}.v8cache`)) : []

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

/** Long enough for a start that found no usable cache to have written one (it does a second after starting). */
const outlastWrite = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_500)))

const identity = (file: string) => {
  const stat = Fs.statSync(file)
  return { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size }
}

/** The first byte of a cache file: 1 for the partial cache of a run shorter than a second, 2 for a full one. */
const stageOf = (file: string) => Fs.readFileSync(file)[0]
const PARTIAL = 1
const FULL = 2

const runtimes = [
  { version: process.version, node: process.execPath },
  ...NodeRuntimes.TESTED.map((version) => ({ version: `v${version}`, node: NodeRuntimes.node(version) })),
]

describe.each(runtimes)("the code cache on Node $version", ({ version, node }) => {
  it.live("is written beside the bundle by the first start, and used as it is by the next", () =>
    Effect.gen(function* () {
      const installed = install(`first-${version}`)
      yield* serve(
        installed,
        node,
        until(() => caches(installed.dist, version).length === 1, 10_000),
      )
      const [name] = caches(installed.dist, version)
      const file = Path.join(installed.dist, name as string)
      const written = identity(file)
      expect(written.size).toBeGreaterThan(100_000)
      expect(stageOf(file)).toBe(FULL)

      yield* serve(installed, node, outlastWrite)
      // A cache V8 refused would have been written again, as a new file.
      expect(identity(file)).toEqual(written)
      expect(Fs.readdirSync(installed.home)).toEqual([])
    }),
  )
})

describe("the code cache, when a start cannot use or write it as usual", () => {
  it.live("a run shorter than a second leaves a partial cache, which the next start that serves replaces", () =>
    Effect.gen(function* () {
      const installed = install("partial")
      const entry = Path.join(installed.dist, "svc-mcp.js")
      const version = yield* Spawn.runCommand(process.execPath, [entry, "--version"], { env: { HOME: installed.home } })
      expect(version.code).toBe(0)
      const [name] = caches(installed.dist, process.version)
      const file = Path.join(installed.dist, name as string)
      expect(stageOf(file)).toBe(PARTIAL)
      const partial = identity(file)

      // A partial cache is used, and a run that serves for a second writes the full one.
      yield* serve(
        installed,
        process.execPath,
        until(() => stageOf(file) === FULL, 10_000),
      )
      expect(identity(file).ino).not.toBe(partial.ino)
      expect(caches(installed.dist, process.version)).toEqual([name])
    }),
  )

  it.live("a corrupt cache file is ignored, and replaced", () =>
    Effect.gen(function* () {
      const installed = install("corrupt")
      yield* serve(
        installed,
        process.execPath,
        until(() => caches(installed.dist, process.version).length === 1, 10_000),
      )
      const file = Path.join(installed.dist, caches(installed.dist, process.version)[0] as string)
      const garbage = Buffer.alloc(identity(file).size, 0x5a)
      Fs.writeFileSync(file, garbage)

      yield* serve(
        installed,
        process.execPath,
        until(() => !Fs.readFileSync(file).equals(garbage), 10_000),
      )
      expect(identity(file).size).toBeGreaterThan(100_000)
    }),
  )

  it.live("beside a bundle it cannot write to, it lives in the user's cache directory, the user's alone", () =>
    Effect.gen(function* () {
      const installed = install("read-only")
      // The entry names the bundle's hash, which names its cache.
      const hash = /"([0-9a-f]{16})"\)/.exec(Fs.readFileSync(Path.join(installed.dist, "svc-mcp.js"), "utf8"))?.[1]
      const cacheName = CompileCache.fileName(hash as string)
      // The cache's own name taken by a directory (root writes through a mode), and the directory made read-only.
      Fs.mkdirSync(Path.join(installed.dist, cacheName, "taken"), { recursive: true })
      Fs.chmodSync(installed.dist, 0o555)

      const userCache = Path.join(installed.home, ".cache", "svc-mcp")
      yield* serve(
        installed,
        process.execPath,
        until(() => caches(userCache, process.version).length === 1, 10_000),
      )
      const file = Path.join(userCache, cacheName)
      expect(Fs.statSync(userCache).mode & 0o777).toBe(0o700)
      expect(Fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(Fs.readdirSync(installed.dist).sort()).toEqual([cacheName, "svc-mcp.cjs", "svc-mcp.js"])
      const written = identity(file)

      yield* serve(installed, process.execPath, outlastWrite)
      expect(identity(file)).toEqual(written)
    }).pipe(Effect.ensuring(Effect.sync(() => Fs.chmodSync(Path.join(work, "read-only", "dist"), 0o755)))),
  )
})
