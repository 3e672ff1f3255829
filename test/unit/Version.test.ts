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

const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-version-"))
afterAll(() => Fs.rmSync(scratch, { recursive: true, force: true }))

/** A copy of the files that state the version, as the repository has them, with [Unreleased] as given. */
const copy = (name: string, unreleased = "### Added\n\n- A tool.") => {
  const dir = Path.join(scratch, name)
  for (const file of FILES) {
    Fs.mkdirSync(Path.dirname(Path.join(dir, file)), { recursive: true })
    Fs.copyFileSync(Path.join(root, file), Path.join(dir, file))
  }
  const changelog = Fs.readFileSync(Path.join(dir, "CHANGELOG.md"), "utf8")
  const start = changelog.indexOf("## [Unreleased]\n")
  const end = changelog.indexOf("\n[Unreleased]: ")
  Fs.writeFileSync(
    Path.join(dir, "CHANGELOG.md"),
    `${changelog.slice(0, start)}## [Unreleased]\n\n${unreleased}\n${changelog.slice(end)}`,
  )
  return dir
}
const version = (dir: string, ...args: Array<string>) =>
  ChildProcess.spawnSync(process.execPath, [SCRIPT, "--root", dir, ...args], { encoding: "utf8" })
const text = (dir: string, file: string) => Fs.readFileSync(Path.join(dir, file), "utf8")
const json = (dir: string, file: string) => JSON.parse(text(dir, file))
const snapshot = (dir: string) => FILES.map((file) => text(dir, file))

describe("version:bump", () => {
  it("moves every file's version together, and nothing else in them", () => {
    const before = copy("bump")
    const dir = copy("bump-after")
    const bumped = version(dir, "0.2.0")
    expect(bumped.stderr).toContain(`${current} -> 0.2.0`)
    expect(bumped.status).toBe(0)

    expect(json(dir, "package.json")).toEqual({ ...json(before, "package.json"), version: "0.2.0" })
    const lock = json(before, "package-lock.json")
    expect(json(dir, "package-lock.json")).toEqual({
      ...lock,
      version: "0.2.0",
      packages: { ...lock.packages, "": { ...lock.packages[""], version: "0.2.0" } },
    })
    const server = json(before, "server.json")
    expect(json(dir, "server.json")).toEqual({
      ...server,
      version: "0.2.0",
      packages: [
        { ...server.packages[0], version: "0.2.0" },
        { ...server.packages[1], identifier: "ghcr.io/svc-mcp/svc-mcp:0.2.0" },
      ],
    })
    expect(json(dir, "mcpb/manifest.json")).toEqual({ ...json(before, "mcpb/manifest.json"), version: "0.2.0" })
    expect(text(dir, "src/Shared/Version.ts")).toBe(
      text(before, "src/Shared/Version.ts").replace(`"${current}"`, '"0.2.0"'),
    )
    expect(text(dir, "deploy/kubernetes/deployment.yaml")).toBe(
      text(before, "deploy/kubernetes/deployment.yaml").replace(`svc-mcp:${current}\n`, "svc-mcp:0.2.0\n"),
    )
    // Formatting kept: one line changed in each file but the lock (two), server.json (three), the CHANGELOG.
    const changed = (file: string) => {
      const [a, b] = [text(before, file).split("\n"), text(dir, file).split("\n")]
      expect(b.length).toBe(a.length)
      return a.filter((line, i) => line !== b[i]).length
    }
    expect(FILES.slice(0, -1).map(changed)).toEqual([1, 2, 3, 1, 1, 1])

    const changelog = text(dir, "CHANGELOG.md")
    expect(changelog).toContain(`## [Unreleased]\n\n## [0.2.0] - ${today}\n\n### Added\n\n- A tool.\n`)
    expect(changelog).toMatch(
      /\n\[Unreleased\]: https:\/\/github\.com\/svc-mcp\/svc-mcp\/compare\/v0\.2\.0\.\.\.HEAD\n\[0\.2\.0\]: https:\/\/github\.com\/svc-mcp\/svc-mcp\/releases\/tag\/v0\.2\.0\n$/,
    )
    expect(version(dir, "--check", "v0.2.0").status).toBe(0)
    expect(version(dir, "--notes").stdout).toBe("### Added\n\n- A tool.\n")
  })

  it("links a later release to what changed since the one before", () => {
    const dir = copy("twice")
    expect(version(dir, "0.2.0").status).toBe(0)
    const changelog = text(dir, "CHANGELOG.md").replace("## [Unreleased]\n", "## [Unreleased]\n\n- More.\n")
    Fs.writeFileSync(Path.join(dir, "CHANGELOG.md"), changelog)
    expect(version(dir, "v0.3.0-rc.1").status).toBe(0)
    expect(json(dir, "package.json").version).toBe("0.3.0-rc.1")
    expect(text(dir, "CHANGELOG.md")).toContain(
      "[0.3.0-rc.1]: https://github.com/svc-mcp/svc-mcp/compare/v0.2.0...v0.3.0-rc.1\n[0.2.0]: ",
    )
    // The release itself comes after its candidates.
    Fs.writeFileSync(
      Path.join(dir, "CHANGELOG.md"),
      text(dir, "CHANGELOG.md").replace("## [Unreleased]\n", "## [Unreleased]\n\n- Fixed.\n"),
    )
    expect(version(dir, "0.3.0").status).toBe(0)
  })

  it("dates the first release of the version the files state, and changes nothing else", () => {
    const dir = copy("first")
    const before = snapshot(dir)
    expect(version(dir, "--check", `v${current}`).stderr).toContain(`CHANGELOG.md has no section [${current}]`)
    expect(version(dir, current).status).toBe(0)
    expect(snapshot(dir).slice(0, -1)).toEqual(before.slice(0, -1))
    expect(text(dir, "CHANGELOG.md")).toContain(`## [${current}] - ${today}\n`)
    expect(version(dir, "--check", `v${current}`).status).toBe(0)
    // Released once: the same version again is refused.
    expect(version(dir, current).stderr).toContain("is not above the last version released")
  })

  it("refuses what is not a release, and leaves every file as it was", () => {
    const dir = copy("refused")
    const before = snapshot(dir)
    const refusals: Array<[Array<string>, RegExp]> = [
      [["0.2"], /0\.2 is not a version/],
      [["0.2.0.1"], /is not a version/],
      [["0.0.9"], /0\.0\.9 is not above/],
      [[], /usage: npm run version:bump -- X\.Y\.Z/],
    ]
    for (const [args, message] of refusals) {
      const refused = version(dir, ...args)
      expect(refused.status).toBe(1)
      expect(refused.stderr).toMatch(message)
    }
    const empty = copy("empty", "")
    const emptyBefore = snapshot(empty)
    expect(version(empty, "0.2.0").stderr).toContain("[Unreleased] section is empty")
    expect(snapshot(empty)).toEqual(emptyBefore)
    // A file out of step is named, and nothing is written.
    Fs.writeFileSync(Path.join(dir, "mcpb/manifest.json"), text(dir, "mcpb/manifest.json").replace(current, "9.9.9"))
    const out = version(dir, "0.2.0")
    expect(out.stderr).toContain("mcpb/manifest.json states 9.9.9")
    expect(version(dir, "--check").stderr).toContain("mcpb/manifest.json states 9.9.9")
    expect(snapshot(dir).filter((t, i) => t !== before[i]).length).toBe(1)
  })

  it("finds the repository's own files in step", () => {
    const checked = ChildProcess.spawnSync(process.execPath, [SCRIPT, "--check"], { encoding: "utf8" })
    expect(checked.stderr).toBe(`version: ${FILES.length} files at ${current}\n`)
    expect(checked.status).toBe(0)
  })
})
