/**
 * Run in the image's build stage, in the directory holding dist/ and the production
 * node_modules: removes every installed package the bundle never loads. The bundle
 * (dist/svc-mcp/) carries its dependencies inline but for a few it imports by name
 * (telemetry's SDK, loaded only when configured); those, and what they depend on
 * (dependencies, optional and peer ones, as package-lock.json resolved them), are
 * kept. From what is kept go the files Node never reads: TypeScript sources and
 * declarations, source maps, Markdown.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

const lock = JSON.parse(Fs.readFileSync("package-lock.json", "utf8")).packages
const installed = (path) => lock[path] !== undefined && Fs.existsSync(path)

// The bare specifiers the bundle imports: its externals.
const roots = new Set()
for (const file of Fs.readdirSync("dist/svc-mcp")) {
  const code = Fs.readFileSync(Path.join("dist/svc-mcp", file), "utf8")
  for (const [, name] of code.matchAll(/(?:\bimport\(|\bfrom)\s*"((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^"]*)?"/g)) {
    if (installed(`node_modules/${name}`)) roots.add(name)
  }
}

/** Where Node finds `name` from the package installed at `from` (a lock path, "" for the root). */
const resolve = (from, name) => {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`
    if (installed(candidate)) return candidate
    if (dir === "") return undefined
  }
}

const keep = new Set()
const visit = (path) => {
  if (path === undefined || keep.has(path)) return
  keep.add(path)
  const entry = lock[path]
  for (const deps of [entry.dependencies, entry.optionalDependencies, entry.peerDependencies]) {
    for (const name of Object.keys(deps ?? {})) visit(resolve(path, name))
  }
}
for (const name of roots) visit(`node_modules/${name}`)

const paths = Object.keys(lock).filter((path) => path.startsWith("node_modules/"))
// Deepest first, so that a nested package is judged before its parent is removed.
for (const path of paths.sort((a, b) => b.length - a.length)) {
  if (!keep.has(path)) Fs.rmSync(path, { recursive: true, force: true })
}
const unread = /\.(?:d\.[cm]?ts|[cm]?ts|map|md)$/
for (const file of Fs.readdirSync("node_modules", { recursive: true })) {
  const full = Path.join("node_modules", file)
  if (unread.test(file) && Fs.lstatSync(full).isFile()) Fs.rmSync(full)
}
process.stdout.write(`kept ${keep.size} packages for ${[...roots].sort().join(", ")}\n`)
