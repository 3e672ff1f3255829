/**
 * The help tells everything: every variable the server reads is in the one list
 * (src/Cli/Variables.ts), `--help` shows that list, and the table of
 * docs/configuration.md names the same variables in the same groups. A variable
 * read in src/ and missing from the list (or listed and read nowhere) fails here.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Cli from "../../../src/Cli/CommandLine.js"
import * as Help from "../../../src/Cli/Help.js"
import * as Setup from "../../../src/Cli/Setup.js"
import * as Variables from "../../../src/Cli/Variables.js"

const root = Path.resolve(Path.dirname(Path.dirname(import.meta.dirname)), "..")

const NAME = /\b(?:SVC|OTEL)_[A-Z0-9_]+\b/g

/**
 * The variables src/ reads: every string literal that is exactly a variable's name
 * (as `Config.string("SVC_X")` and the settings module's helpers take them), and
 * `X_FILE` beside each `secret("X")`, which reads both.
 */
const readInSources = (): Set<string> => {
  const names = new Set<string>()
  const dir = Path.join(root, "src")
  for (const file of Fs.readdirSync(dir, { recursive: true }) as Array<string>) {
    if (!file.endsWith(".ts") || file.split(Path.sep).join("/") === "Cli/Variables.ts") continue
    const text = Fs.readFileSync(Path.join(dir, file), "utf8")
    for (const [, name] of text.matchAll(/["'`]((?:SVC|OTEL)_[A-Z0-9_]+)["'`]/g)) names.add(name as string)
    for (const [, name] of text.matchAll(/\bsecret\(\s*["'`]([A-Z0-9_]+)["'`]\s*\)/g)) names.add(`${name}_FILE`)
  }
  return names
}

/** docs/configuration.md's table: a bold row starts each group, the names are in the first cell. */
const documentedGroups = (): Array<[string, Array<string>]> => {
  const page = Fs.readFileSync(Path.join(root, "docs/configuration.md"), "utf8")
  const start = page.indexOf("\n## Variables\n")
  expect(start).toBeGreaterThan(0)
  const end = page.indexOf("\n## ", start + 1)
  const section = page.slice(start + 1, end < 0 ? undefined : end)
  const groups: Array<[string, Array<string>]> = []
  for (const line of section.split("\n")) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1]?.trim()
    if (first === undefined) continue
    const title = /^\*\*(.+)\*\*$/.exec(first)?.[1]
    if (title !== undefined) groups.push([title, []])
    else for (const [name] of first.matchAll(NAME)) groups.at(-1)?.[1].push(name)
  }
  return groups
}

const listed = Variables.GROUPS.map((group) => [group.title, group.variables.map((v) => v.name)])

describe("the variables the server reads", () => {
  it("are each listed once, and src/ reads exactly those", () => {
    const names = Variables.ALL.map((variable) => variable.name)
    expect(new Set(names).size).toBe(names.length)
    expect([...readInSources()].sort()).toEqual([...names].sort())
  })

  it("are named by docs/configuration.md's table, in the same groups and order", () => {
    expect(documentedGroups()).toEqual(listed)
  })

  it("are all in --help, under their group's title", () => {
    const sections = Help.HELP.split("\n\n")
    for (const group of Variables.GROUPS) {
      const section = sections.find((text) => text.startsWith(`${group.title}:\n`))
      expect(section).toBeDefined()
      const lines = (section ?? "").split("\n").slice(1)
      expect(lines.map((line) => line.trim().split(/\s+/)[0])).toEqual(group.variables.map((v) => v.name))
      for (const line of lines) expect(line.trim().split(/\s{2,}/)).toHaveLength(2)
    }
    expect(new Set(Help.HELP.match(NAME))).toEqual(
      new Set([...Variables.ALL.map((v) => v.name), "OTEL_EXPORTER_OTLP_"]),
    )
  })
})

describe("the command line's help", () => {
  it("is asked for as --help, -h, help, help setup and setup --help", () => {
    expect(Cli.parse(["--help"])).toEqual({ _tag: "Help", topic: "all" })
    expect(Cli.parse(["-h"])).toEqual({ _tag: "Help", topic: "all" })
    expect(Cli.parse(["help"])).toEqual({ _tag: "Help", topic: "all" })
    expect(Cli.parse(["help", "setup"])).toEqual({ _tag: "Help", topic: "setup" })
    expect(Cli.parse(["setup", "--help"])).toEqual({ _tag: "Help", topic: "setup" })
    expect(Cli.parse(["help", "check"])).toMatchObject({
      _tag: "Invalid",
      message: "usage: svc-mcp help [setup | people]",
    })
    expect(Cli.parse(["--help", "x"])).toMatchObject({ _tag: "Invalid" })
    // people's: what it needs, and that NAME is the claim's value.
    expect(Cli.parse(["people", "--help"])).toEqual({ _tag: "Help", topic: "people" })
    expect(Cli.parse(["help", "people"])).toEqual({ _tag: "Help", topic: "people" })
    expect(Help.help("people")).toContain(
      "NAME is the identity as SVC_MCP_IDENTITIES names it: the value of the file's",
    )
    expect(Help.help("people")).toContain("SVC_URL")
    expect(Help.help("people")).toContain("list on stdout")
  })

  it("says what each command does in one line, and setup's what each client gets in one line", () => {
    const commands = Help.HELP.split("\n\n")[1]?.split("\n") ?? []
    for (const command of [
      "svc-mcp ",
      "--http-port",
      "--sandbox",
      "sandbox [--port N]",
      "check",
      "audit verify FILE...",
      "setup",
      "help",
    ]) {
      expect(commands.filter((line) => line.includes(command)).length).toBeGreaterThan(0)
    }
    for (const line of commands) expect(line).toMatch(/^ {2}svc-mcp\S*( \S+)*? {2,}\S.*$/)
    for (const client of Setup.CLIENTS) {
      expect(Setup.HELP.split("\n").filter((line) => line.startsWith(`  ${client} `))).toHaveLength(1)
    }
  })

  it("says how patterns are written, that * matches anywhere, and lists the class destructive", () => {
    const section = Help.HELP.split("\n\n").find((text) => text.startsWith("Patterns ")) ?? ""
    expect(section).toMatch(/\* matches any run of characters anywhere/)
    expect(section).toMatch(/^ {2}svc_delete: every selector$/m)
    const execute = section.slice(section.indexOf("svc_execute:")).replace(/\s+/g, " ")
    for (const selector of [
      "run_server_prune_images",
      "delete_volume",
      "batch_destroy_stack",
      "remove_swarm_stacks",
      "stop_stack",
    ]) {
      expect(execute).toContain(selector)
    }
    expect(section).toMatch(/^ {2}svc_update \(SVC_REACH=all\): user_group_remove_user/m)
    for (const line of section.split("\n")) expect(line.length).toBeLessThanOrEqual(100)
  })

  it("takes audit verify with files, the store's stream, or both", () => {
    expect(Cli.parse(["audit", "verify", "a.log", "b.log"])).toEqual({ _tag: "AuditVerify", files: ["a.log", "b.log"] })
    expect(Cli.parse(["audit", "verify", "--store", "redis://r:6379", "--prefix", "t:", "a.log"])).toEqual({
      _tag: "AuditVerify",
      files: ["a.log"],
      store: "redis://r:6379",
      prefix: "t:",
    })
    expect(Cli.parse(["audit", "verify", "--store", "redis://r:6379"])).toMatchObject({ files: [] })
    for (const argv of [["audit"], ["audit", "verify"], ["audit", "check", "a.log"], ["audit", "verify", "-x", "a"]]) {
      expect(Cli.parse(argv)).toEqual({
        _tag: "Invalid",
        message: "usage: svc-mcp audit verify [--store URL [--prefix P]] FILE...",
      })
    }
    expect(Cli.parse(["audit", "verify", "--prefix", "t:", "a.log"])).toMatchObject({ _tag: "Invalid" })
  })

  it("fits a terminal: no line over 100 characters", () => {
    // The lines over it, whole: a failure names the variable or flag whose line is too long.
    const long = [Help.HELP, Setup.HELP].flatMap((text) => text.split("\n").filter((line) => line.length > 100))
    expect(long).toEqual([])
  })
})
