#!/usr/bin/env node
/**
 * The version, in every file that states it, moved together:
 *
 *   npm run version:bump -- 0.2.0     package.json and its lock, server.json (the version, the npm
 *                                     package's and the image's tag), mcpb/manifest.json,
 *                                     src/Shared/Version.ts, the Kubernetes recipe's image, and
 *                                     CHANGELOG.md: [Unreleased] becomes [0.2.0] with today's date,
 *                                     under a new empty [Unreleased], and the links below follow
 *   node scripts/version.mjs --check [v0.2.0]
 *                                     every file states package.json's version; with a tag, the
 *                                     tag's too, and CHANGELOG.md has its section
 *   node scripts/version.mjs --notes 0.2.0
 *                                     that version's CHANGELOG section, for the GitHub release
 *
 * Each file is edited where it states the version and nowhere else, so its formatting stays; each
 * is read back and checked before anything is written. A bump refuses a version that is not
 * semver, not above the last release (the current version, once CHANGELOG.md has its section), or
 * an empty [Unreleased]: a release says what changed.
 * `--root DIR` works on another copy of the repository.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const REPOSITORY = "https://github.com/svc-mcp/svc-mcp"
const IMAGE = "ghcr.io/svc-mcp/svc-mcp"
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/

/** A refusal: said on stderr as `version: MESSAGE`, exit code 1, nothing written. */
class Refused extends Error {}
const fail = (message) => {
  throw new Refused(message)
}
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Compares two semver versions: negative, zero or positive. A pre-release sorts before its release. */
const compare = (a, b) => {
  const [pa, pb] = [SEMVER.exec(a), SEMVER.exec(b)]
  for (const i of [1, 2, 3]) if (Number(pa[i]) !== Number(pb[i])) return Number(pa[i]) - Number(pb[i])
  if (pa[4] === pb[4]) return 0
  if (pa[4] === undefined) return 1
  if (pb[4] === undefined) return -1
  return pa[4] < pb[4] ? -1 : 1
}

/** Where each file states the version: read it, and write another in its place. */
const FILES = [
  {
    file: "package.json",
    get: (text) => [JSON.parse(text).version],
    set: (text, from, to) => text.replace(`"version": "${from}"`, `"version": "${to}"`),
  },
  {
    file: "package-lock.json",
    get: (text) => {
      const lock = JSON.parse(text)
      return [lock.version, lock.packages[""].version]
    },
    // The lock's own version and its root package's: the first two, before any dependency's.
    set: (text, from, to) =>
      text
        .replace(`"version": "${from}"`, `"version": "${to}"`)
        .replace(new RegExp(`("packages": \\{\\s*"": \\{[^}]*?"version": )"${literal(from)}"`), `$1"${to}"`),
  },
  {
    file: "server.json",
    get: (text) => {
      const server = JSON.parse(text)
      return [
        server.version,
        ...server.packages.map((p) => (p.registryType === "oci" ? p.identifier.slice(`${IMAGE}:`.length) : p.version)),
      ]
    },
    set: (text, from, to) =>
      text.replaceAll(`"version": "${from}"`, `"version": "${to}"`).replaceAll(`${IMAGE}:${from}"`, `${IMAGE}:${to}"`),
  },
  {
    file: "mcpb/manifest.json",
    get: (text) => [JSON.parse(text).version],
    set: (text, from, to) => text.replace(`"version": "${from}"`, `"version": "${to}"`),
  },
  {
    file: "src/Shared/Version.ts",
    get: (text) => [/export const VERSION = "([^"]+)"/.exec(text)?.[1]],
    set: (text, from, to) => text.replace(`VERSION = "${from}"`, `VERSION = "${to}"`),
  },
  {
    file: "deploy/kubernetes/deployment.yaml",
    get: (text) => [...text.matchAll(new RegExp(`image: ${literal(IMAGE)}:(\\S+)`, "g"))].map((m) => m[1]),
    set: (text, from, to) => text.replaceAll(`image: ${IMAGE}:${from}`, `image: ${IMAGE}:${to}`),
  },
]

/** Every version each file states, and where they disagree with `expected`. */
const disagreements = (read, expected) =>
  FILES.flatMap(({ file, get }) => {
    const found = get(read(file))
    return found.length > 0 && found.every((v) => v === expected) ? [] : [`${file} states ${found.join(", ")}`]
  })

/** CHANGELOG.md's section for `version` ("Unreleased" included), without its heading. */
const section = (changelog, version) => {
  const heading = new RegExp(`^## \\[${literal(version)}\\][^\\n]*\\n`, "m").exec(changelog)
  if (heading === null) return undefined
  const start = heading.index + heading[0].length
  const next = changelog.slice(start).search(/^## \[|^\[[^\]]+\]: /m)
  return changelog.slice(start, next === -1 ? undefined : start + next).trim()
}

const bumpChangelog = (changelog, from, to, date) => {
  const unreleased = section(changelog, "Unreleased")
  if (unreleased === undefined) fail("CHANGELOG.md has no ## [Unreleased] section")
  if (unreleased === "") fail("CHANGELOG.md's [Unreleased] section is empty: say what changed before a release")
  const headed = changelog.replace(/^## \[Unreleased\][^\n]*\n/m, `## [Unreleased]\n\n## [${to}] - ${date}\n`)
  // The first release links to its tag; a later one to what changed since the one before.
  const first = section(changelog, from) === undefined
  const links = headed.replace(
    /^\[Unreleased\]: .*$/m,
    `[Unreleased]: ${REPOSITORY}/compare/v${to}...HEAD\n[${to}]: ${
      first ? `${REPOSITORY}/releases/tag/v${to}` : `${REPOSITORY}/compare/v${from}...v${to}`
    }`,
  )
  if (links === headed) fail("CHANGELOG.md has no [Unreleased]: link at its end")
  return links
}

/** What a command line asks, on the files under its root (`--root DIR`, else this repository). */
const perform = (args, io) => {
  const rootAt = args.indexOf("--root")
  const root = rootAt === -1 ? Path.resolve(import.meta.dirname, "..") : Path.resolve(args[rootAt + 1] ?? ".")
  const rest = rootAt === -1 ? args : args.filter((_, i) => i !== rootAt && i !== rootAt + 1)
  const read = (file) => Fs.readFileSync(Path.join(root, file), "utf8")
  const [command, value] = rest
  const current = JSON.parse(read("package.json")).version

  if (command === "--check") {
    const tag = value
    const wrong = disagreements(read, current)
    if (tag !== undefined && tag !== `v${current}`) wrong.push(`the tag ${tag} is not v${current}`)
    // A release also needs its CHANGELOG section, which the bump made.
    if (tag !== undefined && section(read("CHANGELOG.md"), current) === undefined)
      wrong.push(`CHANGELOG.md has no section [${current}]`)
    if (wrong.length > 0) fail(`not all at ${current}: ${wrong.join("; ")}`)
    io.err(`version: ${FILES.length + 1} files at ${current}\n`)
  } else if (command === "--notes") {
    const notes = section(read("CHANGELOG.md"), value ?? current)
    if (notes === undefined || notes === "") fail(`CHANGELOG.md has no notes for ${value ?? current}`)
    io.out(`${notes}\n`)
  } else if (command !== undefined && !command.startsWith("-")) {
    const to = command.replace(/^v/, "")
    if (!SEMVER.test(to)) fail(`${command} is not a version (MAJOR.MINOR.PATCH, with an optional -pre-release)`)
    // The version the files state may be released once: its CHANGELOG section is what says it was.
    const released = section(read("CHANGELOG.md"), current) !== undefined
    if (compare(to, current) < 0 || (compare(to, current) === 0 && released))
      fail(`${to} is not above the last version released, ${current}`)
    const before = disagreements(read, current)
    if (before.length > 0) fail(`the files disagree before the bump: ${before.join("; ")}`)
    const date = new Date().toISOString().slice(0, 10)
    const written = FILES.map(({ file, set }) => ({ file, text: set(read(file), current, to) }))
    written.push({ file: "CHANGELOG.md", text: bumpChangelog(read("CHANGELOG.md"), current, to, date) })
    // Read back before writing: each file states the new version wherever it stated the old one.
    for (const { file, get } of FILES) {
      const found = get(written.find((w) => w.file === file).text)
      if (found.length === 0 || found.some((v) => v !== to)) fail(`${file} would state ${found.join(", ")}, not ${to}`)
    }
    for (const { file, text } of written) Fs.writeFileSync(Path.join(root, file), text)
    io.err(`version: ${current} -> ${to} in ${written.map((w) => w.file).join(", ")}\n`)
  } else {
    fail("usage: npm run version:bump -- X.Y.Z | node scripts/version.mjs --check [vX.Y.Z] | --notes [X.Y.Z]")
  }
}

/**
 * The script on the arguments of a command line (without `node` and its path): its exit code, what
 * it says written through `io`. Exported so that its tests run it in their own thread.
 */
export const run = (
  args,
  io = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
) => {
  try {
    perform(args, io)
    return 0
  } catch (error) {
    if (!(error instanceof Refused)) throw error
    io.err(`version: ${error.message}\n`)
    return 1
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(Path.resolve(process.argv[1])).href) {
  process.exitCode = run(process.argv.slice(2))
}
