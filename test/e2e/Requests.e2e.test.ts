/**
 * The requests `npm run answer-sizes` measures (scripts/everyday-requests.mjs), replayed on the
 * built server over the sandbox as the script replays them: the everyday ones each answer, the
 * questions asked in one call among them; the whole-service ones (`SVC_REACH=all`) each answer,
 * and say what now holds where a change answers with nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
// @ts-expect-error: a script of the project's, in JavaScript, with no types
import { REQUESTS, replay, WHOLE_SERVICE } from "../../scripts/everyday-requests.mjs"
import * as Spawn from "../support/Spawn.js"

interface Replayed {
  readonly request: string
  readonly texts: ReadonlyArray<string>
}

/** A client of the built server on the small estate with everything in reach, whose user accepts each question. */
const connect = async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [Spawn.ENTRY, "--sandbox", "--estate", "small"],
    env: { PATH: process.env.PATH ?? "", SVC_REACH: "all", SVC_WAIT_POLL_MS: "100" },
    stderr: "pipe",
  })
  const client = new Client({ name: "svc-mcp-requests", version: "1.0.0" }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }))
  await client.connect(transport)
  return client
}

describe("the everyday requests answer-sizes measures", () => {
  it.live(
    "each call answers; what runs now and where a stack's files are, in one call each",
    () =>
      Effect.gen(function* () {
        const requests = REQUESTS as ReadonlyArray<{ request: string; calls: ReadonlyArray<unknown> }>
        const answers = (yield* Effect.promise(() => replay(connect, false, requests))) as ReadonlyArray<Replayed>
        expect(answers.map((a) => a.request)).toEqual(requests.map((r) => r.request))
        for (const [i, a] of answers.entries()) expect(a.texts, a.request).toHaveLength(requests[i]?.calls.length ?? -1)
        const text = (request: string) => answers.find((a) => a.request === request)?.texts.join("\n") ?? ""
        // Every execution before it was followed to its end: nothing runs.
        expect(text("Is anything deploying or restarting right now?")).toBe('{"updates":[]}')
        expect(text("Where is the web stack's compose file?")).toContain('"files":["compose.yaml"]')
        expect(text("Does staging-web run now, after its deploy?")).toMatch(/^\[svc-mcp: stack staging-web at a glance/)
      }),
    120_000,
  )
})

describe("the whole-service requests answer-sizes measures", () => {
  it.live(
    "each call answers; a change says what now holds",
    () =>
      Effect.gen(function* () {
        const requests = WHOLE_SERVICE as ReadonlyArray<{ request: string; calls: ReadonlyArray<unknown> }>
        const answers = (yield* Effect.promise(() => replay(connect, false, requests))) as ReadonlyArray<Replayed>
        expect(answers.map((a) => a.request)).toEqual(requests.map((r) => r.request))
        for (const [i, a] of answers.entries()) expect(a.texts, a.request).toHaveLength(requests[i]?.calls.length ?? -1)
        const text = (request: string) => answers.find((a) => a.request === request)?.texts.join("\n") ?? ""
        expect(text("What is each open alert about?")).toMatch(/"ServerDisk"/)
        expect(text("Tag the api deployment release and say what it is for.")).toMatch(
          /read back\]\n\{"tags":\["release"\],"description":"the public API"/,
        )
        // One call each: the change says what now holds, the refresh what it computed.
        expect(text("Let ci-bot deploy the web stack.")).toContain(
          '[svc-mcp: the permission now, read back]\n{"user_target":"User ci-bot","resource_target":"Stack web","level":"Execute","specific":[]}',
        )
        expect(text("Is the web stack's repository ahead of what runs?")).toMatch(
          /^\[svc-mcp: the cache of the stack web is refreshed; its commits now/,
        )
        expect(text("Which stacks have a newer image?")).toMatch(/^\[svc-mcp: checked \d+ stacks for newer images: /)
        expect(text("Let estate-sync write to its repository, and commit the estate to it.")).toContain(
          "CommitSync succeeded.",
        )
        expect(text("Which version is the core?")).toMatch(/^\{"version":"\d+\.\d+\.\d+"\}$/)
      }),
    120_000,
  )
})
