#!/usr/bin/env node
/**
 * `npm run variables`: writes server.json's variables (each package's `environmentVariables`, the
 * npm package's and the image's alike) from the one list of variables, src/Cli/Variables.ts, where a
 * setting is added. `--check`: changes nothing, and exits 1 where server.json differs from that list
 * (test/unit/Registry.test.ts holds the same). docs/configuration.md's table, whose rows say more than
 * the list's one line, is held to the list's names, groups and order by test/unit/Cli/Help.test.ts.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as esbuild from "esbuild"

const ROOT = Path.resolve(import.meta.dirname, "..")
const FILE = Path.join(ROOT, "server.json")

const built = await esbuild.build({
  entryPoints: [Path.join(ROOT, "src/Cli/Variables.ts")],
  bundle: true,
  write: false,
  format: "esm",
  platform: "node",
  logLevel: "silent",
})
const Variables = await import(
  `data:text/javascript;base64,${Buffer.from(built.outputFiles[0].text).toString("base64")}`
)

const before = Fs.readFileSync(FILE, "utf8")
const server = JSON.parse(before)
const entries = Variables.registryEntries()
for (const pkg of server.packages) pkg.environmentVariables = entries
const after = `${JSON.stringify(server, null, 2)}\n`

if (process.argv.includes("--check")) {
  if (after !== before) {
    process.stderr.write("server.json's variables differ from src/Cli/Variables.ts: run npm run variables\n")
    process.exit(1)
  }
  process.stderr.write(`server.json: ${entries.length} variables, as src/Cli/Variables.ts lists them\n`)
} else {
  Fs.writeFileSync(FILE, after)
  process.stderr.write(`server.json: ${entries.length} variables written from src/Cli/Variables.ts\n`)
}
