#!/usr/bin/env node
/**
 * `npm run bundle:mcpb`: the Claude Desktop bundle, dist/svc-mcp.mcpb (or the file
 * given with --out). It holds what `npm pack` ships of the built server (every file
 * package.json's `files` names, whatever the build lays out in dist/, without the
 * library's type declarations), the service's definitions among them, and
 * mcpb/manifest.json, which says how Claude Desktop starts it and which settings it
 * asks for. The manifest is checked with `mcpb validate` and the bundle written with
 * `mcpb pack` (@anthropic-ai/mcpb, a dev dependency).
 *
 * Run after `npm run build` (the npm script does both).
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const root = Path.resolve(import.meta.dirname, "..")
const at = process.argv.indexOf("--out")
const out = Path.resolve(at > 0 ? process.argv[at + 1] : Path.join(root, "dist/svc-mcp.mcpb"))
const mcpb = Path.join(root, "node_modules/@anthropic-ai/mcpb/dist/cli/cli.js")
// The tools' definitions, and every endpoint's (the sandbox answers by them).
const DEFINITIONS = ["spec/service-api.schema.json", "spec/service-api-all.schema.json"]

const fail = (message) => {
  process.stderr.write(`bundle:mcpb: ${message}\n`)
  process.exit(1)
}

const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "mcpb/manifest.json"), "utf8"))
if (manifest.version !== pkg.version) {
  fail(`mcpb/manifest.json's version ${manifest.version} is not package.json's ${pkg.version}`)
}
if (!Fs.existsSync(Path.join(root, manifest.server.entry_point))) {
  fail(`${manifest.server.entry_point} is missing: run npm run build first`)
}

// What npm would publish, listed without running the build again (prepack).
const listed = ChildProcess.spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
  cwd: root,
  encoding: "utf8",
})
if (listed.status !== 0) fail(`npm pack --dry-run failed: ${listed.stderr}`)
const files = JSON.parse(listed.stdout)[0].files.map((file) => file.path)
for (const needed of [manifest.server.entry_point, ...DEFINITIONS]) {
  if (!files.includes(needed)) fail(`npm pack would not ship ${needed}: package.json's files must name it`)
}

const stage = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-mcpb-"))
try {
  for (const file of files.filter((file) => !file.endsWith(".d.ts"))) {
    Fs.mkdirSync(Path.dirname(Path.join(stage, file)), { recursive: true })
    Fs.copyFileSync(Path.join(root, file), Path.join(stage, file))
  }
  Fs.copyFileSync(Path.join(root, "mcpb/manifest.json"), Path.join(stage, "manifest.json"))
  const run = (args) => {
    const result = ChildProcess.spawnSync(process.execPath, [mcpb, ...args], { encoding: "utf8" })
    if (result.status !== 0) fail(`mcpb ${args[0]} failed:\n${result.stdout}${result.stderr}`)
    return result.stdout
  }
  run(["validate", Path.join(stage, "manifest.json")])
  Fs.mkdirSync(Path.dirname(out), { recursive: true })
  Fs.rmSync(out, { force: true })
  run(["pack", stage, out])
  if (!Fs.existsSync(out)) fail(`mcpb pack wrote no ${out}`)
  const size = (Fs.statSync(out).size / 1024).toFixed(0)
  process.stderr.write(`bundle:mcpb: wrote ${Path.relative(process.cwd(), out) || out} (${size} kB)\n`)
} finally {
  Fs.rmSync(stage, { recursive: true, force: true })
}
