/**
 * The documentation a newcomer reads: a README short enough to read to the end,
 * with the commands to try and to test the server near its top, and links across
 * the README and docs/ that lead somewhere.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const read = (file: string) => Fs.readFileSync(Path.join(root, file), "utf8")
const readme = read("README.md")
const pages = [
  "README.md",
  "CONTRIBUTING.md",
  "SECURITY.md",
  "CHANGELOG.md",
  ...Fs.readdirSync(Path.join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`),
]

/** Text outside fenced code blocks, where a link is a link. */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "")

/** A heading's anchor, as GitHub makes it. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-")

const anchors = (text: string) =>
  new Set([...prose(text).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1] as string)))

describe("the maintainers' pages", () => {
  it("architecture.md stays within the 250 lines it promises", () => {
    expect(read("docs/architecture.md").trimEnd().split("\n").length).toBeLessThanOrEqual(250)
  })

  it("CONTRIBUTING.md's recipes walk the three everyday changes, each through the files it touches", () => {
    const page = read("CONTRIBUTING.md")
    const recipes = page.slice(page.indexOf("\n## Recipes\n"), page.indexOf("\n## Pull requests\n"))
    const titles = [...recipes.matchAll(/^\*\*(.+?)\*\*/gm)].map(([, title]) => title)
    expect(titles).toHaveLength(3)
    for (const [, path] of recipes.matchAll(/`((?:src|test)\/[\w/.-]+\.ts)`/g)) {
      expect(Fs.existsSync(Path.join(root, path as string)), path).toBe(true)
    }
  })
})

describe("the README", () => {
  it("is at most 200 lines, with the commands to try it on the sandbox and to test it in its first 60", () => {
    const lines = readme.split("\n")
    expect(lines.length).toBeLessThanOrEqual(201)
    const top = lines.slice(0, 60).join("\n")
    expect(top).toContain("npm ci && npm test")
    expect(top).toContain("npm run test:unit")
    expect(top).toMatch(/^svc-mcp --sandbox/m)
  })

  it("gives the commands CI runs, in the order it runs them", () => {
    const commands = read(".ci/run")
      .split("\n")
      .filter((line) => line.startsWith("npm "))
      .map((line) => line.split(" ").slice(0, 2).join(" "))
    expect(commands).toEqual(["npm ci", "npm test"])
    expect(readme).toContain(commands.join(" && "))
  })
})

describe("links in the README and docs/", () => {
  it("name files that exist and headings they have", () => {
    // The README's Documentation list may name a page before it is written.
    const listed = readme.slice(readme.indexOf("\n## Documentation\n"))
    const broken: Array<string> = []
    for (const page of pages) {
      const text = read(page)
      for (const [, target] of prose(text).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue
        const [file = "", hash] = (target as string).split("#")
        const resolved = file === "" ? page : Path.posix.normalize(Path.posix.join(Path.posix.dirname(page), file))
        if (!Fs.existsSync(Path.join(root, resolved))) {
          if (!(page === "README.md" && listed.includes(`](${target})`))) broken.push(`${page}: ${target}`)
          continue
        }
        if (hash !== undefined && !(resolved.endsWith(".md") && anchors(read(resolved)).has(hash)))
          broken.push(`${page}: ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it("leave no section behind: the README links every page of docs/", () => {
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]))
    expect(pages.filter((page) => page.startsWith("docs/") && !linked.has(page))).toEqual([])
  })
})
