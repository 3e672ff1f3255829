/**
 * The executable's first step: Node's own compile cache (`module.enableCompileCache`,
 * Node 22.1 and later), turned on before the program is loaded, so that every start
 * after the first reads V8's compiled code instead of compiling the bundle again.
 * Node 20 has no such cache: there the program simply compiles.
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
export const enableCompileCache = (bundleDir: string, build: string): void => {
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
