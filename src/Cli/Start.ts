/**
 * The executable's first step: the program is loaded with V8's compiled code kept
 * from an earlier start, so that every start after the first reads it instead of
 * compiling the program again.
 *
 * - On Node 22.1 and later, Node's own compile cache (`module.enableCompileCache`),
 *   turned on before the program's ES modules are loaded.
 * - On Node 20, which has none, the program's CommonJS build (`svc-mcp/program.cjs`,
 *   the same sources in one file) is run as a `vm.Script` with V8's code cache. That
 *   cache is made a second after the start, so it holds every function the start ran
 *   (V8 compiles a function on its first call), and Node 20's ES module loader, which
 *   reads and links the program's modules one by one, is not on the way
 *   (docs/benchmark.md, "The start on Node 20").
 *
 * Where the cache lives: beside the bundle if that directory is writable, else in
 * the user's cache directory, else in a directory of the user's own in the temporary
 * one; outside the bundle's directory, only a directory of the user's own that
 * others cannot write to (a cache is code). Each build has a directory of its own
 * there, named by its hash, and the first start of a build removes the others'.
 * Whatever goes wrong with the cache only means a plain compile: it never stops a start.
 */

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Fs = process.getBuiltinModule("node:fs")
const Module = process.getBuiltinModule("node:module")
const Os = process.getBuiltinModule("node:os")
const Path = process.getBuiltinModule("node:path")

/** The directory beside the bundle that holds its caches. */
export const BESIDE = "compile-cache"

/** The program as one CommonJS file, in the bundle's directory, for a Node without a compile cache. */
export const PROGRAM_CJS = "program.cjs"

const BUILD_PREFIX = "build-"

/** What Node 22.1+ adds to node:module (the types here are Node 20's). */
const NodeModule = Module as {
  readonly enableCompileCache?: (dir: string) => unknown
  readonly flushCompileCache?: () => void
}

/** How long after the start the cache is written, besides at the exit, which a server ended by a signal never reaches. */
const FLUSH_AFTER_MS = 1000

const isOwnPrivateDirectory = (dir: string): boolean => {
  const stat = Fs.lstatSync(dir)
  const uid = process.getuid?.()
  return stat.isDirectory() && (uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0))
}

/** The user's cache directory, as each system names it. */
const userCacheDir = (): string | undefined => {
  const home = Os.homedir()
  if (!home) return undefined
  if (process.platform === "darwin") return Path.join(home, "Library", "Caches")
  if (process.platform === "win32") return Path.join(home, "AppData", "Local")
  return Path.join(home, ".cache")
}

/** The directories the caches may live in, best first. */
export const candidates = (bundleDir: string): ReadonlyArray<string> => {
  const found: Array<string> = [Path.join(bundleDir, BESIDE)]
  const user = userCacheDir()
  if (user !== undefined) found.push(Path.join(user, "svc-mcp"))
  found.push(Path.join(Os.tmpdir(), `svc-mcp-${process.getuid?.() ?? "user"}`))
  return found
}

/** The first candidate that is, or can be made, a usable directory. */
const usable = (dirs: ReadonlyArray<string>): string | undefined =>
  dirs.find((dir, i) => {
    try {
      Fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      Fs.accessSync(dir, Fs.constants.W_OK)
      return i === 0 || isOwnPrivateDirectory(dir)
    } catch {
      return false
    }
  })

/**
 * The cache directory of the build named `build` of the bundle in `bundleDir` (not made here: the
 * cache's writer makes it); the first start of a build removes the other builds' directories.
 * Undefined where no directory can hold a cache.
 */
const buildCacheDir = (bundleDir: string, build: string): string | undefined => {
  const base = usable(candidates(bundleDir))
  if (base === undefined) return undefined
  const dir = Path.join(base, `${BUILD_PREFIX}${build}`)
  if (!Fs.existsSync(dir)) {
    for (const other of Fs.readdirSync(base)) {
      if (other.startsWith(BUILD_PREFIX) && other !== Path.basename(dir)) {
        Fs.rmSync(Path.join(base, other), { recursive: true, force: true })
      }
    }
  }
  return dir
}

/**
 * Turns on the compile cache for the bundle in `bundleDir`, whose build is named
 * `build`, when this Node has one.
 */
const enableCompileCache = (bundleDir: string, build: string): void => {
  const { enableCompileCache: enable, flushCompileCache: flush } = NodeModule
  if (enable === undefined) return
  try {
    const dir = buildCacheDir(bundleDir, build)
    if (dir === undefined) return
    enable(dir)
    // What it holds is fixed as each module loads (V8's code for its top level), whenever it is written.
    if (flush !== undefined) setTimeout(flush, FLUSH_AFTER_MS).unref()
  } catch {}
}

/** Where this Node keeps the program's code cache in a build's directory (V8's code is its version's own). */
const programCacheFile = (buildDir: string): string =>
  Path.join(buildDir, `${process.version}-${process.arch}-program`, "program")

/** Reads a cache file; undefined where there is none to read. */
const readCache = (file: string): Buffer | undefined => {
  try {
    return Fs.readFileSync(file)
  } catch {
    return undefined
  }
}

/** Writes the script's code cache whole or not at all: a start reading it meanwhile finds the old one or none. */
const writeCache = (file: string, script: import("node:vm").Script): void => {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    Fs.mkdirSync(Path.dirname(file), { recursive: true, mode: 0o700 })
    Fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600 })
    Fs.renameSync(temporary, file)
  } catch {
    // A write cut short (a full disk) leaves no part of a cache behind.
    try {
      Fs.rmSync(temporary, { force: true })
    } catch {}
  }
}

/**
 * Runs the program's CommonJS build in `bundleDir` through V8's code cache: the cache this build's
 * starts made, if V8 takes it; else the program compiles, and the cache is written a second later.
 * False, having run nothing, where the build has no CommonJS file (a copy of its ES modules alone).
 */
const runProgram = (bundleDir: string, build: string): boolean => {
  const file = Path.join(bundleDir, "svc-mcp", PROGRAM_CJS)
  let source: string
  try {
    source = Fs.readFileSync(file, "utf8")
  } catch {
    return false
  }
  const Vm = process.getBuiltinModule("node:vm")
  let cacheFile: string | undefined
  try {
    const dir = buildCacheDir(bundleDir, build)
    cacheFile = dir === undefined ? undefined : programCacheFile(dir)
  } catch {}
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile)
  // CommonJS's own wrapper, and `svcMcpLoad`: the program imports the fleet view's page with this
  // module's import(), since Node 20 gives a script compiled from a code cache none that works
  // (scripts/bundle.mjs builds Shared/Load.ts so).
  const wrapped = `(function (exports, require, module, __filename, __dirname, svcMcpLoad) {${source}\n})`
  const script = new Vm.Script(wrapped, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    const target = cacheFile
    setTimeout(() => writeCache(target, script), FLUSH_AFTER_MS).unref()
  }
  const module = { exports: {} }
  const run = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  const load = (specifier: string): Promise<unknown> => import(specifier)
  run.call(module.exports, module.exports, Module.createRequire(file), module, file, Path.dirname(file), load)
  return true
}

/**
 * Starts the program of the bundle in `bundleDir`, whose build is named `build`: on a Node with
 * a compile cache, turns it on and returns false, for the entry to load the program's ES modules;
 * on Node 20, runs the program's CommonJS build through V8's code cache and returns true.
 */
export const start = (bundleDir: string, build: string): boolean => {
  if (NodeModule.enableCompileCache === undefined) return runProgram(bundleDir, build)
  enableCompileCache(bundleDir, build)
  return false
}
