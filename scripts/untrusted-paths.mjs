// Writes src/Untrusted/Paths.ts from the service's definitions and the rules of
// src/Untrusted/Fields.ts, through the built Derive.js: `npm run build && node scripts/untrusted-paths.mjs`.
import * as Fs from "node:fs"
import * as Path from "node:path"
import { derive } from "../dist/Untrusted/Derive.js"

const root = Path.resolve(import.meta.dirname, "..")
// Every endpoint's: those SVC_REACH=all adds too (the interface's have the same definitions in both files).
const document = JSON.parse(Fs.readFileSync(Path.join(root, "spec/service-api-all.schema.json"), "utf8"))
const groups = new Map()
const lists = []
const entries = []
for (const [endpoint, patterns] of Object.entries(derive(document))) {
  const key = JSON.stringify(patterns)
  let name = groups.get(key)
  if (name === undefined) {
    name = `P${groups.size}`
    groups.set(key, name)
    lists.push(`const ${name}: Patterns = ${key}`)
  }
  entries.push(`  ${JSON.stringify(endpoint)}: ${name},`)
}
const head = Fs.readFileSync(Path.join(root, "src/Untrusted/Paths.ts"), "utf8").split("\ntype Patterns")[0]
Fs.writeFileSync(
  Path.join(root, "src/Untrusted/Paths.ts"),
  `${head}\ntype Patterns = ReadonlyArray<Pattern>\n\n${lists.join("\n")}\n\nexport const PATHS: Readonly<Record<string, Patterns>> = {\n${entries.join("\n")}\n}\n`,
)
