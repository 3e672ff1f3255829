/**
 * Tools that need Node 22 (the MCP conformance suite, the MCP Inspector) run
 * on a Node 22 binary fetched from the npm registry for the test run, into
 * node_modules/.cache; the product itself keeps to Node 20.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "../..")
const CACHE = Path.join(ROOT, "node_modules/.cache/svc-mcp-tools")

export const NODE22_VERSION = "22.23.3"
export const INSPECTOR_VERSION = "2.12.0"

const npmInstall = (prefix: string, spec: string) => {
  const result = ChildProcess.spawnSync(
    "npm",
    ["install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", prefix, spec],
    { encoding: "utf8", timeout: 300_000 },
  )
  if (result.status !== 0) throw new Error(`npm install ${spec} failed: ${result.stderr}`)
}

/** The running Node if it is recent enough, else a Node 22 binary from the registry. */
export const node22 = (): string => {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number]
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath
  const pkg = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`
  const prefix = Path.join(CACHE, `node-${NODE22_VERSION}`)
  const binary = Path.join(prefix, "node_modules", pkg, "bin", process.platform === "win32" ? "node.exe" : "node")
  if (!Fs.existsSync(binary)) npmInstall(prefix, `${pkg}@${NODE22_VERSION}`)
  return binary
}

/** The MCP Inspector's launcher script, installed once per version. */
export const inspector = (): string => {
  const prefix = Path.join(CACHE, `inspector-${INSPECTOR_VERSION}`)
  const launcher = Path.join(prefix, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
  if (!Fs.existsSync(launcher)) npmInstall(prefix, `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`)
  return launcher
}

export const conformance = (): string => Path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js")

/** The conformance suite's expected failures, for a --spec-version. */
export const baseline = (version: string) =>
  Path.join(ROOT, version === "2026-07-28" ? "conformance/baseline.yml" : `conformance/baseline-${version}.yml`)
