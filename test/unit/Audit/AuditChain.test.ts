/**
 * The audit chain and `audit verify`'s reading of it, pure: a whole log
 * holds; any one-byte change, any removed line and any swap of two lines
 * fail at the line where they are; several writers' files read together; a
 * line without chain fields is broken, wherever it stands.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import * as Chain from "../../../src/Audit/Chain.js"
import * as Verify from "../../../src/Audit/Verify.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

const KEY = new Uint8Array(Buffer.from("an audit key of at least thirty-two bytes!"))
const OTHER_KEY = new Uint8Array(Buffer.from("another audit key, also of 32+ bytes long"))

/** `n` lines of one writer: changes (intent, outcome), a refusal, a checkpoint now and then, and a closing checkpoint. */
const logOf = (writer: string, size: number, key: Uint8Array | undefined = KEY, close = true): Array<string> => {
  let state = Chain.start(writer)
  let n = size
  const lines: Array<string> = []
  const add = (fields: Record<string, unknown>) => {
    if (lines.length === n) return
    const sealed = Chain.seal(state, fields)
    lines.push(sealed.line)
    state = sealed.next
  }
  for (let i = 0; lines.length < size; i++) {
    const time = new Date(Date.UTC(2026, 10, 25, 20, 0, i)).toISOString()
    if (i % 5 === 4) add(Chain.checkpoint(state, time, false, key))
    else if (i % 5 === 3) add({ time, caller: "server", tool: "svc_delete", outcome: "refused", durationMs: 0 })
    else {
      const intent = state.seq
      add({
        phase: "intent",
        time,
        caller: "server",
        who: "oauth:ann",
        tool: "svc_update",
        target: `s${i}`,
        params: { id: `s${i}`, note: "é ✓" },
      })
      add({ phase: "outcome", intent, time, caller: "server", tool: "svc_update", outcome: "ok", durationMs: 3 })
    }
  }
  if (close) {
    n++
    add(Chain.checkpoint(state, "2026-11-25T21:00:00.000Z", true, key))
  }
  return lines
}

const fileOf = (name: string, text: string): Verify.Source => {
  const lines = Buffer.from(text, "utf8")
    .toString("latin1")
    .split("\n")
    .map((line) => Buffer.from(line, "latin1"))
  // The newline that ends the last line leaves an empty last part.
  if (lines.at(-1)?.length === 0) lines.pop()
  return { name, kind: "file", lines }
}

const sourceOf = (name: string, lines: ReadonlyArray<string>) => fileOf(name, `${lines.join("\n")}\n`)

const bytesOf = (name: string, bytes: Buffer): Verify.Source => {
  const lines: Array<Uint8Array> = []
  let start = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines.push(bytes.subarray(start, i))
      start = i + 1
    }
  }
  if (start < bytes.length) lines.push(bytes.subarray(start))
  return { name, kind: "file", lines }
}

describe("a whole log", () => {
  it("holds, with its checkpoints verified, and ends closed", () => {
    const report = Verify.verify([sourceOf("audit.log", logOf("w1", 30))], KEY)
    expect(report.problems).toEqual([])
    expect(report.status).toBe("holds")
    expect(Verify.exitCode(report)).toBe(0)
    expect(report.writers).toEqual([
      expect.objectContaining({ writer: "w1", lines: 31, first: 0, last: 30, sealed: true, closed: true }),
    ])
    const checkpoints = logOf("w1", 30).filter((line) => line.includes('"phase":"checkpoint"')).length
    expect(checkpoints).toBeGreaterThan(3)
    expect(report.checkpoints).toEqual({ signed: checkpoints, checked: true })
    expect(Verify.format(report)).toMatch(/the chains hold$/)
  })

  it("holds without the key too, saying the signatures were not checked", () => {
    const report = Verify.verify([sourceOf("audit.log", logOf("w1", 12))])
    expect(report.status).toBe("holds")
    expect(Verify.format(report)).toContain("checkpoints' signatures not checked")
  })

  it("is open when it does not end on a checkpoint, and lists an intent with no outcome as outcome unknown", () => {
    // The server was killed while its last change was sent: its intent has no outcome.
    const lines = logOf("w1", 8, KEY, false)
    const last = JSON.parse(lines[7] as string) as { seq: number; hash: string }
    lines.push(
      Chain.seal(
        { writer: "w1", seq: last.seq + 1, prev: last.hash },
        {
          phase: "intent",
          time: "2026-11-25T20:00:09.000Z",
          who: "oauth:ann",
          tool: "svc_delete",
          selector: "stack",
          target: "web",
        },
      ).line,
    )
    const report = Verify.verify([sourceOf("audit.log", lines)], KEY)
    expect(report.status).toBe("open")
    expect(Verify.exitCode(report)).toBe(3)
    expect(report.unknown).toEqual([expect.objectContaining({ source: "audit.log", line: 9, writer: "w1" })])
    // The checkpoint is line 8: the intent after it is not sealed.
    expect(report.writers[0]?.openFrom).toEqual({ source: "audit.log", line: 9 })
    const text = Verify.format(report)
    expect(text).toContain("outcome unknown (an intent with no outcome")
    expect(text).toContain("audit.log:9: 2026-11-25T20:00:09.000Z oauth:ann svc_delete stack web")
  })
})

/** A log of at least 3 lines and one of its places. */
const arbitraryLog = FastCheck.integer({ min: 3, max: 24 }).chain((n) =>
  FastCheck.record({ n: FastCheck.constant(n), lines: FastCheck.constant(logOf("w1", n)) }),
)

describe("a log changed after it was written", () => {
  property(
    "any one-byte change fails verify at the line it is in",
    {
      log: arbitraryLog.chain(({ lines }) => {
        const size = Buffer.byteLength(`${lines.join("\n")}\n`)
        return FastCheck.record({
          lines: FastCheck.constant(lines),
          at: FastCheck.integer({ min: 0, max: size - 1 }),
          byte: FastCheck.integer({ min: 0, max: 255 }),
        })
      }),
    },
    ({ log: { lines, at, byte } }) => {
      const bytes = Buffer.from(`${lines.join("\n")}\n`, "utf8")
      FastCheck.pre(bytes[at] !== byte)
      const expected = bytes.subarray(0, at).filter((b) => b === 0x0a).length + 1
      bytes[at] = byte
      const report = Verify.verify([bytesOf("audit.log", bytes)], KEY)
      expect(report.status).toBe("broken")
      expect(report.problems[0]).toMatchObject({ source: "audit.log", line: expected })
    },
    { fastCheck: { numRuns: runs(375) } },
  )

  property(
    "any removed line fails verify at the line after it; the last removed leaves the chain open",
    {
      log: arbitraryLog.chain(({ n, lines }) =>
        FastCheck.record({ lines: FastCheck.constant(lines), at: FastCheck.integer({ min: 0, max: n }) }),
      ),
    },
    ({ log: { lines, at } }) => {
      const cut = lines.filter((_, i) => i !== at)
      const report = Verify.verify([sourceOf("audit.log", cut)], KEY)
      if (at === lines.length - 1) {
        // The closing checkpoint removed: what remains ends on no checkpoint, or on a periodic one.
        expect(report.status).not.toBe("holds")
        expect(report.writers[0]?.closed).toBe(false)
      } else {
        expect(report.status).toBe("broken")
        expect(report.problems[0]).toMatchObject({ line: at + 1 })
      }
    },
    { fastCheck: { numRuns: runs(125) } },
  )

  property(
    "any swap of two lines fails verify at the first of them",
    {
      log: arbitraryLog.chain(({ n, lines }) =>
        FastCheck.record({
          lines: FastCheck.constant(lines),
          pair: FastCheck.uniqueArray(FastCheck.integer({ min: 0, max: n }), { minLength: 2, maxLength: 2 }),
        }),
      ),
    },
    ({ log: { lines, pair } }) => {
      const [i, j] = [...pair].sort((a, b) => a - b) as [number, number]
      const swapped = [...lines]
      swapped[i] = lines[j] as string
      swapped[j] = lines[i] as string
      const report = Verify.verify([sourceOf("audit.log", swapped)], KEY)
      expect(report.status).toBe("broken")
      expect(report.problems[0]).toMatchObject({ line: i + 1 })
    },
    { fastCheck: { numRuns: runs(125) } },
  )

  it("a chain rewritten from an edit on passes the hashes, but not the signed checkpoint", () => {
    const lines = logOf("w1", 10)
    // Edit line 2 and seal everything after it again, as one without the key could.
    let state: Chain.ChainState = {
      writer: "w1",
      seq: 1,
      prev: (JSON.parse(lines[0] as string) as { hash: string }).hash,
    }
    const forged: Array<string> = [lines[0] as string]
    for (const line of lines.slice(1)) {
      const { audit, writer, seq, prev, hash, ...fields } = JSON.parse(line) as Record<string, unknown>
      const sealed = Chain.seal(state, fields.tool === "svc_update" ? { ...fields, target: "other" } : fields)
      forged.push(sealed.line)
      state = sealed.next
    }
    const unsigned = Verify.verify([sourceOf("audit.log", forged)])
    expect(unsigned.status).toBe("holds")
    const signed = Verify.verify([sourceOf("audit.log", forged)], KEY)
    expect(signed.status).toBe("broken")
    // Line 8 is the first checkpoint.
    expect(signed.problems[0]).toMatchObject({ line: 8 })
    expect(signed.problems[0]?.problem).toContain("signature does not match")
    expect(Verify.verify([sourceOf("audit.log", lines)], OTHER_KEY).problems[0]?.problem).toContain(
      "signed with another key",
    )
  })
})

describe("several sources", () => {
  it("three writers' files verify together, interleaved or rotated, in any order", () => {
    const [a, b, c] = [logOf("a", 10), logOf("b", 14), logOf("c", 7)]
    // Writer a's file was rotated after line 6: both parts, given newest first.
    const report = Verify.verify(
      [sourceOf("a.log", a.slice(6)), sourceOf("a.log.1", a.slice(0, 6)), sourceOf("b.log", b), sourceOf("c.log", c)],
      KEY,
    )
    expect(report.problems).toEqual([])
    expect(report.status).toBe("holds")
    expect(report.writers.map((w) => [w.writer, w.lines])).toEqual([
      ["a", 11],
      ["b", 15],
      ["c", 8],
    ])
    // Without the older part, the missing start is named.
    const partial = Verify.verify([sourceOf("a.log", a.slice(6))], KEY)
    expect(partial.problems[0]?.problem).toContain("starts at seq 6: the lines before it are missing")
  })

  it("the stream stands in for a lost file, and shows a file's cut tail", () => {
    const [a, b] = [logOf("a", 9), logOf("b", 9)]
    // The stream holds both writers' lines, interleaved as they came.
    const stream: Verify.Source = {
      name: "stream svc-mcp:audit",
      kind: "stream",
      lines: a
        .flatMap((line, i) => [line, b[i] as string])
        .concat(a.slice(b.length), b.slice(a.length))
        .map((l) => Buffer.from(l)),
    }
    const lost = Verify.verify([sourceOf("a.log", a), stream], KEY)
    expect(lost.status).toBe("holds")
    expect(lost.writers.map((w) => w.writer)).toEqual(["a", "b"])
    const cut = Verify.verify([sourceOf("a.log", a.slice(0, 5)), stream], KEY)
    expect(cut.status).toBe("broken")
    expect(cut.problems[0]).toMatchObject({ source: "a.log", line: 5 })
    expect(cut.problems[0]?.problem).toContain("the file's tail after this line was cut")
    // A line of the file that differs from the stream's copy is named.
    const edited = [...a]
    edited[2] = (edited[2] as string).replace('"seq":2', '"seq":2 ')
    expect(Verify.verify([sourceOf("a.log", edited), stream], KEY).problems[0]).toMatchObject({ line: 3 })
  })
})

describe("a line without chain fields", () => {
  it("is broken, first or among chained lines; a log with no line at all is said empty", () => {
    const bare = JSON.stringify({
      time: "2026-11-01T10:00:00.000Z",
      caller: "server",
      tool: "svc_create",
      outcome: "ok",
      durationMs: 4,
    })
    const first = Verify.verify([sourceOf("audit.log", [bare, ...logOf("w1", 5)])], KEY)
    expect(first.status).toBe("broken")
    expect(first.problems).toEqual([
      { source: "audit.log", line: 1, problem: "it has no chain fields: it was inserted or edited" },
    ])
    expect(Verify.exitCode(first)).toBe(1)
    const inserted = logOf("w1", 5)
    inserted.splice(2, 0, bare)
    expect(Verify.verify([sourceOf("audit.log", inserted)], KEY).problems[0]).toMatchObject({ line: 3 })
    const empty = Verify.verify([{ name: "audit.log", kind: "file", lines: [] }], KEY)
    expect(empty.status).toBe("empty")
    expect(Verify.exitCode(empty)).toBe(3)
    expect(Verify.format(empty)).toContain("empty: there is no line to verify")
  })
})
