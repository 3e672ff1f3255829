/**
 * The answers docs/tools.md shows are the server's: each example is asked of the sandbox, as the page
 * says it was, and the answer compared with the page's text, line by line. What changes from run to
 * run is read alike on both sides: ids (their time part follows the clock), the fences' tokens, an
 * execution's seconds (the page's is the sandbox's own pace of a second; here it runs at the tests'
 * pace), and a line the page cuts short with `...`, which holds as far as it goes.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Mcp from "../../support/Mcp.js"
import * as Sandboxes from "../../support/Sandbox.js"
import * as Spec from "../../support/Spec.js"

const page = Fs.readFileSync(Path.join(Spec.root, "docs/tools.md"), "utf8")

/** The page's example whose first line starts so: its lines, the fence's indentation dropped. */
const example = (start: string): ReadonlyArray<string> => {
  const blocks = [...page.matchAll(/^( *)```(?:[a-z]+)?\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    (body as string)
      .trimEnd()
      .split("\n")
      .map((line) => line.slice((indent as string).length)),
  )
  const found = blocks.filter((lines) => lines[0]?.startsWith(start))
  expect(found, start).toHaveLength(1)
  return found[0] as ReadonlyArray<string>
}

const alike = (line: string) =>
  line
    .replace(/\b[0-9a-f]{24}\b/g, "<id>")
    .replace(/<(\/?)u:[0-9a-f]{16}>/g, "<$1u>")
    .replace(/"seconds":[0-9]+(\.[0-9])?,/g, '"seconds":<n>,')

/** The answer holds the page's lines: each the same, or, where the page cuts it with `...`, begun the same. */
const expectShown = (answer: string, shown: ReadonlyArray<string>) => {
  const lines = answer.split("\n").map(alike)
  expect(lines).toHaveLength(shown.length)
  for (const [i, line] of shown.map(alike).entries()) {
    const cut = line.endsWith("...]") ? line.slice(0, -"...]".length) : undefined
    if (cut === undefined) expect(lines[i]).toBe(line)
    else expect(lines[i]?.startsWith(cut), `${lines[i]}\n  begins\n${cut}`).toBe(true)
  }
}

interface Example {
  readonly start: string
  readonly name: string
  readonly args: Record<string, unknown>
  readonly reach?: "all"
}

const EXAMPLES: ReadonlyArray<Example> = [
  { start: "[svc-mcp: 3 stacks as rows of", name: "svc_list", args: { resource_type: "stack" } },
  {
    start: "[svc-mcp: the meta of the deployment docs now, read back]",
    name: "svc_update",
    args: {
      resource_type: "resource_meta",
      params: { target: { type: "Deployment", id: "docs" }, tags: ["canary", "production"], description: "the docs" },
    },
    reach: "all",
  },
  {
    start: "DeployStack succeeded.",
    name: "svc_execute",
    args: { operation: "deploy_stack", params: { stack: "staging-web" }, wait: true },
  },
  {
    start: "[svc-mcp: stack web at a glance",
    name: "svc_get",
    args: { resource_type: "stack", params: { stack: "web" } },
  },
  {
    start: "[svc-mcp: untrusted text at message, changes[].name",
    name: "svc_get",
    args: { resource_type: "sync_resource", params: { sync: "estate-sync" } },
  },
]

// Each asks a sandbox of its own: they run at once.
describe.concurrent("docs/tools.md's answers", () => {
  for (const { start, name, args, reach } of EXAMPLES) {
    it.scopedLive(`${name} ${JSON.stringify(args)} answers as the page shows: ${start}`, () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandboxes.scoped()
        const { client } = yield* Mcp.connectV2(Sandboxes.apiKeyConfig(sandbox), reach === undefined ? {} : { reach })
        const result = yield* Effect.promise(() => client.callTool({ name, arguments: args }))
        expectShown(Mcp.text(result), example(start))
      }),
    )
  }
})
