/**
 * The specification of the tool surface (spec/interface.md), parsed: the tools
 * it names and every `- selector => Endpoint` row under its tool's heading.
 * Tests take their counts from here, so that a selector added to the spec and
 * its table needs no other change to the tests.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

export const root = Path.resolve(import.meta.dirname, "../..")

export const text = Fs.readFileSync(Path.join(root, "spec/interface.md"), "utf8")

/**
 * The shared specification the in-repo copies (spec/) are held to, beside the clone (../shared/spec),
 * as the project's own checkouts and CI have it; a clone of the public repository has none, and the
 * tests that compare the copies with it skip there, their names saying why.
 */
export const sharedDir = Path.resolve(root, "../shared/spec")
export const sharedAbsent = !Fs.existsSync(sharedDir)
export const SKIPPED_WITHOUT_SHARED = "(skipped where no ../shared/spec is beside the clone)"

export interface Row {
  readonly tool: string
  readonly group: string
  readonly selector: string
  readonly endpoint: string
}

const parseRows = (): ReadonlyArray<Row> => {
  const rows: Array<Row> = []
  let tool: string | undefined
  let group: string | undefined
  for (const line of text.split("\n")) {
    const heading = /^### (svc_\w+) \(group `(\w+)`\)/.exec(line)
    if (heading !== null) {
      tool = heading[1]
      group = heading[2]
      continue
    }
    if (line.startsWith("### ")) tool = undefined
    const row = /^- (\w+) => (\w+)\s*$/.exec(line)
    if (row !== null && tool !== undefined && group !== undefined) {
      rows.push({ tool, group, selector: row[1] as string, endpoint: row[2] as string })
    }
  }
  return rows
}

/** Every selector row, in the specification's order. */
export const rows: ReadonlyArray<Row> = parseRows()

const offered = /The server offers (\d+) tools: (.*)\./.exec(text)

/** The sentence naming the tools, as written: "`svc_list`, `svc_get`, ...". */
export const toolSentence: string | undefined = offered?.[2]

/** The number of tools the specification says in words. */
export const statedToolCount: number = Number(offered?.[1])

/** The tools, in the order the specification names them. */
export const tools: ReadonlyArray<string> = (toolSentence ?? "").split(", ").map((name) => name.replace(/`/g, ""))

/** The tools whose group (`read`, `write`, `execute`) is one of these, in the specification's order. */
export const toolsIn = (...groups: ReadonlyArray<string>): ReadonlyArray<string> =>
  tools.filter((tool) => rows.some((row) => row.tool === tool && groups.includes(row.group)))
