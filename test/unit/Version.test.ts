/**
 * `npm run version:bump -- X.Y.Z` (scripts/version.mjs), run on a scratch copy of the files that
 * state the version: it moves them together, and only where they state it; it refuses what is not a
 * release, leaving every file as it was; `--check` and `--notes` are what the release workflow runs.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const SCRIPT = Path.join(root, "scripts", "version.mjs")
const FILES = [
  "package.json",
  "package-lock.json",
  "server.json",
  "mcpb/manifest.json",
  "src/Shared/Version.ts",
  "deploy/kubernetes/deployment.yaml",
  "CHANGELOG.md",
]
const current = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")).version as string
const today = new Date().toISOString().slice(0, 10)
// Versions above whatever the repository states, so that these tests hold after its own bumps.
const major = Number(current.split(".")[0])
const NEXT = `${major + 10}.0.0`
const RC = `${major + 11}.0.0-rc.1`
const AFTER = `${major + 11}.0.0`
// The first release links to its tag, a later one to the changes since the last (the repository's, if it has one).
const releasedBefore = Fs.readFileSync(Path.join(root, "CHANGELOG.md"), "utf8").includes(`\n## [${current}] - `)

const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-version-"))
afterAll(() => Fs.rmSync(scratch, { recursive: true, force: true }))

/** A copy of the files that state the version, as the repository has them, with [Unreleased] as given. */
const copy = (name: string, unreleased = "### Added\n\n- A tool.", history = true) => {
  const dir = Path.join(scratch, name)
  for (const file of FILES) {
    Fs.mkdirSync(Path.dirname(Path.join(dir, file)), { recursive: true })
    Fs.copyFileSync(Path.join(root, file), Path.join(dir, file))
  }
  const changelog = Fs.readFileSync(Path.join(dir, "CHANGELOG.md"), "utf8")
  const start = changelog.indexOf("## [Unreleased]\n")
  // Its section ends where the next one, or the links, begin: the releases before it stay, unless
  // the copy is to be of a repository that has released nothing yet.
  const next = changelog.indexOf("\n## [", start + 1)
  const end = next === -1 || !history ? changelog.indexOf("\n[Unreleased]: ") : next
  Fs.writeFileSync(
    Path.join(dir, "CHANGELOG.md"),
    `${changelog.slice(0, start)}## [Unreleased]\n\n${unreleased}\n${changelog.slice(end)}`,
  )
  return dir
}
/** The script's own entry (scripts/version.mjs `run`): what a command line's arguments make of it. */
type Run = (args: Array<string>, io: { out: (text: string) => void; err: (text: string) => void }) => number
const { run } = (await import(SCRIPT)) as { run: Run }

/**
 * `node scripts/version.mjs ARGS` as a command line runs it, in this thread: its exit code, and
 * what it wrote to stdout and stderr.
 */
const script = async (argv: Array<string>) => {
  let [stdout, stderr] = ["", ""]
  const status = run(argv, {
    out: (text) => {
      stdout += text
    },
    err: (text) => {
      stderr += text
    },
  })
  return { status, stdout, stderr }
}
const version = (dir: string, ...args: Array<string>) => script(["--root", dir, ...args])
const text = (dir: string, file: string) => Fs.readFileSync(Path.join(dir, file), "utf8")
const json = (dir: string, file: string) => JSON.parse(text(dir, file))
const snapshot = (dir: string) => FILES.map((file) => text(dir, file))

// Each test on copies of its own.
describe("version:bump", () => {
  it("moves every file's version together, and nothing else in them", async () => {
    const before = copy("bump")
    const dir = copy("bump-after")
    const bumped = await version(dir, NEXT)
    expect(bumped.stderr).toContain(`${current} -> ${NEXT}`)
    expect(bumped.status).toBe(0)

    expect(json(dir, "package.json")).toEqual({ ...json(before, "package.json"), version: NEXT })
    const lock = json(before, "package-lock.json")
    expect(json(dir, "package-lock.json")).toEqual({
      ...lock,
      version: NEXT,
      packages: { ...lock.packages, "": { ...lock.packages[""], version: NEXT } },
    })
    const server = json(before, "server.json")
    expect(json(dir, "server.json")).toEqual({
      ...server,
      version: NEXT,
      packages: [
        { ...server.packages[0], version: NEXT },
        { ...server.packages[1], identifier: `ghcr.io/svc-mcp/svc-mcp:${NEXT}` },
      ],
    })
    expect(json(dir, "mcpb/manifest.json")).toEqual({ ...json(before, "mcpb/manifest.json"), version: NEXT })
    expect(text(dir, "src/Shared/Version.ts")).toBe(
      text(before, "src/Shared/Version.ts").replace(`"${current}"`, `"${NEXT}"`),
    )
    expect(text(dir, "deploy/kubernetes/deployment.yaml")).toBe(
      text(before, "deploy/kubernetes/deployment.yaml").replace(`svc-mcp:${current}\n`, `svc-mcp:${NEXT}\n`),
    )
    // Formatting kept: one line changed in each file but the lock (two), server.json (three), the CHANGELOG.
    const changed = (file: string) => {
      const [a, b] = [text(before, file).split("\n"), text(dir, file).split("\n")]
      expect(b.length).toBe(a.length)
      return a.filter((line, i) => line !== b[i]).length
    }
    expect(FILES.slice(0, -1).map(changed)).toEqual([1, 2, 3, 1, 1, 1])

    const changelog = text(dir, "CHANGELOG.md")
    expect(changelog).toContain(`## [Unreleased]\n\n## [${NEXT}] - ${today}\n\n### Added\n\n- A tool.\n`)
    const repo = "https://github.com/svc-mcp/svc-mcp"
    const since = releasedBefore ? `${repo}/compare/v${current}...v${NEXT}` : `${repo}/releases/tag/v${NEXT}`
    expect(changelog).toContain(`\n[Unreleased]: ${repo}/compare/v${NEXT}...HEAD\n[${NEXT}]: ${since}\n`)
    expect((await version(dir, "--check", `v${NEXT}`)).status).toBe(0)
    expect((await version(dir, "--notes")).stdout).toBe("### Added\n\n- A tool.\n")
  })

  it("links a later release to what changed since the one before", async () => {
    const dir = copy("twice")
    expect((await version(dir, NEXT)).status).toBe(0)
    const changelog = text(dir, "CHANGELOG.md").replace("## [Unreleased]\n", "## [Unreleased]\n\n- More.\n")
    Fs.writeFileSync(Path.join(dir, "CHANGELOG.md"), changelog)
    expect((await version(dir, `v${RC}`)).status).toBe(0)
    expect(json(dir, "package.json").version).toBe(RC)
    expect(text(dir, "CHANGELOG.md")).toContain(
      `[${RC}]: https://github.com/svc-mcp/svc-mcp/compare/v${NEXT}...v${RC}\n[${NEXT}]: `,
    )
    // The release itself comes after its candidates.
    Fs.writeFileSync(
      Path.join(dir, "CHANGELOG.md"),
      text(dir, "CHANGELOG.md").replace("## [Unreleased]\n", "## [Unreleased]\n\n- Fixed.\n"),
    )
    expect((await version(dir, AFTER)).status).toBe(0)
  })

  it("dates the first release of the version the files state, and changes nothing else", async () => {
    const dir = copy("first", "- Everything.", false)
    const before = snapshot(dir)
    expect((await version(dir, "--check", `v${current}`)).stderr).toContain(`CHANGELOG.md has no section [${current}]`)
    expect((await version(dir, current)).status).toBe(0)
    expect(snapshot(dir).slice(0, -1)).toEqual(before.slice(0, -1))
    expect(text(dir, "CHANGELOG.md")).toContain(`## [${current}] - ${today}\n`)
    expect((await version(dir, "--check", `v${current}`)).status).toBe(0)
    // Released once: the same version again is refused.
    expect((await version(dir, current)).stderr).toContain("is not above the last version released")
  })

  it("refuses what is not a release, and leaves every file as it was", async () => {
    const dir = copy("refused")
    const before = snapshot(dir)
    const refusals: Array<[Array<string>, RegExp]> = [
      [["0.2"], /0\.2 is not a version/],
      [["0.2.0.1"], /is not a version/],
      [["0.0.9"], /0\.0\.9 is not above/],
      [[], /usage: npm run version:bump -- X\.Y\.Z/],
    ]
    for (const [args, message] of refusals) {
      const { status, stderr } = await version(dir, ...args)
      expect(status).toBe(1)
      expect(stderr).toMatch(message)
    }
    const empty = copy("empty", "")
    const emptyBefore = snapshot(empty)
    expect((await version(empty, NEXT)).stderr).toContain("[Unreleased] section is empty")
    expect(snapshot(empty)).toEqual(emptyBefore)
    // A file out of step is named, and nothing is written.
    Fs.writeFileSync(Path.join(dir, "mcpb/manifest.json"), text(dir, "mcpb/manifest.json").replace(current, "9.9.9"))
    const out = await version(dir, NEXT)
    expect(out.stderr).toContain("mcpb/manifest.json states 9.9.9")
    expect((await version(dir, "--check")).stderr).toContain("mcpb/manifest.json states 9.9.9")
    expect(snapshot(dir).filter((t, i) => t !== before[i]).length).toBe(1)
  })

  it("finds the repository's own files in step, run as a command line", async () => {
    // The runs through Node itself, at once: the entry that the workflows call, exit code and stderr.
    const node = (...args: Array<string>) =>
      new Promise<{ status: number | null; stderr: string }>((resolve) => {
        ChildProcess.execFile(process.execPath, [SCRIPT, ...args], { encoding: "utf8" }, (error, _, stderr) =>
          resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stderr }),
        )
      })
    const [checked, refused] = await Promise.all([node("--check"), node("0.2")])
    expect(checked.stderr).toBe(`version: ${FILES.length} files at ${current}\n`)
    expect(checked.status).toBe(0)
    expect(refused.stderr).toMatch(/^version: 0\.2 is not a version/)
    expect(refused.status).toBe(1)
  })
})
