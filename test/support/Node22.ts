/**
 * Tools that need Node 22 (the MCP conformance suite, the MCP Inspector) run
 * on a Node 22 binary fetched from the npm registry for the test run, into
 * node_modules/.cache; the product itself keeps to Node 20.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { CACHE, NODE22_VERSION, node, npmInstall } from "./NodeRuntimes.js"

const ROOT = Path.resolve(import.meta.dirname, "../..")

const INSPECTOR_VERSION = "2.12.0"

/** The running Node if it is recent enough, else a Node 22 binary from the registry. */
export const node22 = (): string => {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number]
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath
  return node(NODE22_VERSION)
}

/** The MCP Inspector's launcher script, installed once per version. */
export const inspector = (): string => {
  const prefix = Path.join(CACHE, `inspector-${INSPECTOR_VERSION}`)
  const made = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
  const launcher = Path.join(prefix, made)
  if (!Fs.existsSync(launcher)) npmInstall(prefix, `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, made)
  return launcher
}

export const conformance = (): string => Path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js")

/** The conformance suite's expected failures, for a --spec-version. */
export const baseline = (version: string) =>
  Path.join(ROOT, version === "2026-07-28" ? "conformance/baseline.yml" : `conformance/baseline-${version}.yml`)
