/**
 * Starts the bundled executable with a V8 code cache: compiling the 1.6 MB
 * bundle costs about 100 ms on every start, deserialising its compiled code a
 * few. Node 20 has no compile cache of its own for a program (module.
 * enableCompileCache comes with 22.1), so the bundle is a CommonJS script run
 * through vm.Script, whose cachedData does the same on every Node version.
 *
 * The cache is written a second after the start (so that it holds the
 * functions compiled lazily on the way to serving, not only the top level),
 * or at the exit of a shorter run, beside the bundle if that directory is
 * writable, else in the user's cache directory, else in a directory of the
 * user's own in the temporary one. Its name carries
 * the bundle's content hash and the Node version and architecture; V8 refuses
 * a cache made for another source or build on its own. Whatever goes wrong
 * with the cache (no writable place, a corrupt or stale file) only means a
 * plain compile: it never stops the start.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Vm from "node:vm"

/** How long after the start the cache is written, unless the process ends first. */
const WRITE_AFTER_MS = 1000

const PREFIX = "svc-mcp-"
const SUFFIX = ".v8cache"

/** The file the cache of a bundle lives in, for this Node. */
export const fileName = (hash: string): string => `${PREFIX}${hash}-${process.version}-${process.arch}${SUFFIX}`

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

const writable = (dir: string): boolean => {
  try {
    Fs.accessSync(dir, Fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The directories the cache may live in, best first: beside the bundle, the
 * user's cache directory, a directory of the user's own in the temporary one.
 * Another user's or a world-writable directory is never used: a cache is code.
 */
export const candidates = (bundleDir: string): ReadonlyArray<string> => {
  const found: Array<string> = [bundleDir]
  const user = userCacheDir()
  if (user !== undefined) found.push(Path.join(user, "svc-mcp"))
  found.push(Path.join(Os.tmpdir(), `svc-mcp-${process.getuid?.() ?? "user"}`))
  return found
}

/** Where an existing cache is read from: the first candidate that holds one. */
const findCache = (dirs: ReadonlyArray<string>, name: string): Buffer | undefined => {
  for (const [i, dir] of dirs.entries()) {
    try {
      // Beside the bundle is the package's own directory; the others must be the user's alone.
      if (i > 0 && !isOwnPrivateDirectory(dir)) continue
      return Fs.readFileSync(Path.join(dir, name))
    } catch {}
  }
  return undefined
}

/**
 * Writes the cache into the first directory it can, atomically (a concurrent
 * start reads the old file or the new one, never half of one); removes the
 * caches of other builds of the bundle there.
 */
const writeCache = (dirs: ReadonlyArray<string>, hash: string, data: Buffer): void => {
  const name = fileName(hash)
  for (const [i, dir] of dirs.entries()) {
    const temporary = Path.join(dir, `${name}.${process.pid}.tmp`)
    try {
      if (i > 0) Fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      if (!writable(dir) || (i > 0 && !isOwnPrivateDirectory(dir))) continue
      Fs.writeFileSync(temporary, data, { mode: 0o600 })
      Fs.renameSync(temporary, Path.join(dir, name))
      for (const other of Fs.readdirSync(dir)) {
        if (other.startsWith(PREFIX) && other.endsWith(SUFFIX) && !other.startsWith(`${PREFIX}${hash}-`)) {
          Fs.rmSync(Path.join(dir, other), { force: true })
        }
      }
      return
    } catch {
      try {
        Fs.rmSync(temporary, { force: true })
      } catch {}
    }
  }
}

/**
 * The byte a cache file starts with: how much of the start its code covers. A
 * run that ends within its first second (a one-shot client, --version) leaves
 * a partial cache at its exit, which the next start that serves for a second
 * replaces with a full one; a full one is never written again.
 */
const PARTIAL = 1
const FULL = 2

/**
 * Runs the CommonJS bundle at `bundle` (whose content hash is `hash`) as Node
 * would run it, with the code cache.
 */
export const run = (bundle: string, hash: string): void => {
  const source = Fs.readFileSync(bundle, "utf8")
  const dirs = candidates(Path.dirname(bundle))
  const found = findCache(dirs, fileName(hash))
  const stage = found?.[0]
  const cachedData = stage === PARTIAL || stage === FULL ? found?.subarray(1) : undefined
  // The same wrapper as Node's for a CommonJS module, on the bundle's first line so that its lines keep their numbers.
  const script = new Vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  let covered = cachedData === undefined || script.cachedDataRejected === true ? 0 : (stage as number)
  const write = (upTo: number) => {
    if (covered >= upTo) return
    covered = upTo
    try {
      // Another start may have written a cache since this one began: a partial one would only replace it.
      const now = upTo === PARTIAL ? findCache(dirs, fileName(hash)) : undefined
      if ((now?.[0] === PARTIAL || now?.[0] === FULL) && !(found !== undefined && now.equals(found))) return
      writeCache(dirs, hash, Buffer.concat([Buffer.of(upTo), script.createCachedData()]))
    } catch {}
  }
  if (covered < FULL) setTimeout(() => write(FULL), WRITE_AFTER_MS).unref()
  if (covered < PARTIAL) process.once("exit", () => write(PARTIAL))
  const module = { exports: {} }
  const main = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  main(module.exports, createRequire(bundle), module, bundle, Path.dirname(bundle))
}
