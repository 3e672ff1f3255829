/**
 * The audit file's writer: concurrent lines share a write and its flush (group
 * commit); a write that fails leaves the file and the chain where they were;
 * a chain found at the end of the file goes on, and so does one across a
 * reopen (logrotate's SIGHUP); a clean close writes the closing checkpoint.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Verify from "../../../src/Audit/Verify.js"
import { Writer, type WriterOptions } from "../../../src/Audit/Writer.js"
import * as Settings from "../../../src/Settings/Audit.js"

const KEY = new Uint8Array(Buffer.from("an audit key of at least thirty-two bytes!"))
const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-writer-"))
const options = (path: string | undefined, more: Partial<WriterOptions> = {}): WriterOptions => ({
  path,
  writer: "w1",
  key: KEY,
  checkpointMs: 0,
  ...more,
})
const fileSource = (path: string): Verify.Source => ({
  name: path,
  kind: "file",
  lines: Fs.readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => Buffer.from(line)),
})
const seqs = (path: string) =>
  Fs.readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => (JSON.parse(line) as { seq: number }).seq)

describe("the audit writer", () => {
  it("writes fifty concurrent lines in a few batches, in the chain's order, each caller told its seq", async () => {
    const path = Path.join(tempDir(), "audit.log")
    const batches: Array<number> = []
    const writer = Writer.open(options(path, { onWritten: (lines) => batches.push(lines.length) }))
    const written = await Promise.all(Array.from({ length: 50 }, (_, i) => writer.append({ phase: "intent", n: i })))
    expect([...written].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i))
    expect(batches.reduce((a, b) => a + b, 0)).toBe(50)
    // The first line goes alone; the others wait for its flush and share the next.
    expect(batches.length).toBeLessThanOrEqual(3)
    await writer.close()
    expect(seqs(path)).toEqual(Array.from({ length: 51 }, (_, i) => i))
    expect(Verify.verify([fileSource(path)], KEY).status).toBe("holds")
  })

  it("leaves the chain where it was when a write fails, so the next line follows the last one written", async () => {
    // /dev/full takes no byte: each write fails as on a full disk.
    const writer = Writer.open(options("/dev/full"))
    await expect(writer.append({ phase: "intent" })).rejects.toMatchObject({ code: "ENOSPC" })
    await expect(writer.append({ phase: "intent" })).rejects.toMatchObject({ code: "ENOSPC" })
    const path = Path.join(tempDir(), "audit.log")
    const file = Writer.open(options(path))
    expect(await file.append({ n: 0 })).toBe(0)
    await writer.close()
    await file.close()
  })

  it("goes on with the chain at the end of its file after a restart, and across a reopen", async () => {
    const dir = tempDir()
    const path = Path.join(dir, "audit.log")
    const first = Writer.open(options(path, { writer: "first" }))
    await first.append({ n: 0 })
    await first.append({ n: 1 })
    await first.close()
    // A new process finds the chain at the end of the file: the same writer, the next seq.
    const reopened: Array<unknown> = []
    const second = Writer.open(options(path, { writer: "second", onReopen: (error) => reopened.push(error) }))
    expect(second.writer).toBe("first")
    expect(await second.append({ n: 2 })).toBe(3)
    // Rotated: moved away, then reopened at its path.
    Fs.renameSync(path, `${path}.1`)
    second.reopen()
    // Between two batches: at once when idle, else when the batch under way is written.
    await new Promise((resolve) => setImmediate(resolve))
    expect(reopened).toEqual([undefined])
    expect(await second.append({ n: 3 })).toBe(4)
    await second.close()
    expect(seqs(`${path}.1`)).toEqual([0, 1, 2, 3])
    expect(seqs(path)).toEqual([4, 5])
    const report = Verify.verify([fileSource(path), fileSource(`${path}.1`)], KEY)
    expect(report.problems).toEqual([])
    expect(report.status).toBe("holds")
    // A file that does not end with a chained line starts a chain of its own.
    const other = Path.join(dir, "other.log")
    Fs.writeFileSync(other, '{"time":"2026-11-01T10:00:00.000Z","caller":"server","tool":"svc_create"}\n')
    const third = Writer.open(options(other, { writer: "third" }))
    expect(third.writer).toBe("third")
    expect(await third.append({ n: 0 })).toBe(0)
    await third.close()
  })

  it("moves a full file aside itself (SVC_AUDIT_MAX_BYTES), and the chain goes on in the new one", async () => {
    const dir = tempDir()
    const path = Path.join(dir, "audit.log")
    const writer = Writer.open(options(path, { maxBytes: 4096, now: () => "2026-11-25T21:00:00.000Z" }))
    for (let i = 0; i < 40; i++) await writer.append({ n: i, pad: "x".repeat(200) })
    await writer.close()
    const files = Fs.readdirSync(dir).sort()
    expect(files[0]).toBe("audit.log")
    expect(files.slice(1)).toContain("audit.log.20261125T210000Z")
    expect(files.length).toBeGreaterThan(2)
    for (const file of files.slice(1)) expect(Fs.statSync(Path.join(dir, file)).size).toBeGreaterThanOrEqual(4096)
    const report = Verify.verify(
      files.map((file) => fileSource(Path.join(dir, file))),
      KEY,
    )
    expect(report.problems).toEqual([])
    expect(report.status).toBe("holds")
    expect(report.writers).toEqual([expect.objectContaining({ lines: 41, first: 0, last: 40 })])
  })

  it("writes a checkpoint on its interval when lines came since the last, and none when none came", async () => {
    const path = Path.join(tempDir(), "audit.log")
    const writer = Writer.open(options(path, { checkpointMs: 20 }))
    await writer.append({ n: 0 })
    await new Promise((resolve) => setTimeout(resolve, 150))
    const phases = () =>
      Fs.readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => (JSON.parse(line) as { phase?: string }).phase ?? "record")
    expect(phases()).toEqual(["record", "checkpoint"])
    await writer.close()
    expect(phases()).toEqual(["record", "checkpoint", "checkpoint"])
  })
})

describe("the audit log's settings", () => {
  const load = (env: Record<string, string>) =>
    Settings.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))), Effect.either)

  it.effect("read SVC_AUDIT_KEY from the file SVC_AUDIT_KEY_FILE names, and refuse a short key or both", () =>
    Effect.gen(function* () {
      const file = Path.join(tempDir(), "key")
      Fs.writeFileSync(file, "a key of at least thirty-two bytes, for tests\n")
      const read = yield* load({ SVC_AUDIT_LOG: "/var/log/a.log", SVC_AUDIT_KEY_FILE: file })
      expect(read._tag).toBe("Right")
      const settings = read._tag === "Right" ? Option.getOrUndefined(read.right) : undefined
      expect(settings?.destination).toBe("/var/log/a.log")
      expect(Buffer.from(Redacted.value(Option.getOrThrow(settings?.key ?? Option.none()))).toString()).toBe(
        "a key of at least thirty-two bytes, for tests",
      )
      const short = yield* load({ SVC_AUDIT_LOG: "a.log", SVC_AUDIT_KEY: "too short" })
      expect(short._tag === "Left" ? short.left.message : "").toBe(
        "SVC_AUDIT_KEY is 9 bytes long, shorter than 32: give at least 32 random bytes, e.g. the output of `openssl rand -base64 48`",
      )
      const both = yield* load({ SVC_AUDIT_KEY: "k".repeat(40), SVC_AUDIT_KEY_FILE: file })
      expect(both._tag === "Left" ? both.left.message : "").toContain(
        "SVC_AUDIT_KEY_FILE is set, and so is SVC_AUDIT_KEY",
      )
      const small = yield* load({ SVC_AUDIT_LOG: "a.log", SVC_AUDIT_MAX_BYTES: "100" })
      expect(small._tag === "Left" ? small.left.message : "").toMatch(
        /^SVC_AUDIT_MAX_BYTES is not a whole number of bytes of at least 4096 \("100"\)/,
      )
      const sized = yield* load({ SVC_AUDIT_LOG: "a.log", SVC_AUDIT_MAX_BYTES: "104857600" })
      expect(sized._tag === "Right" && Option.getOrUndefined(sized.right)?.maxBytes).toEqual(Option.some(104857600))
      // Without SVC_AUDIT_LOG nothing is audited, key or not.
      const off = yield* load({ SVC_AUDIT_KEY: "k".repeat(40) })
      expect(off._tag === "Right" && Option.isNone(off.right)).toBe(true)
    }),
  )
})
