/**
 * `svc-mcp audit verify`: whether audit lines are whole, from any number of
 * sources read together (files of several replicas, rotated files, the shared
 * store's stream). Pure: the command (Audit/VerifyCommand.ts) reads the
 * sources and prints `format`'s words.
 *
 * Each writer's lines, from every source, make one chain (Audit/Chain.ts). A
 * line that fails its own hash was edited; within a file a writer's lines go
 * up by one, so a removed line shows at the line after it and two swapped
 * lines at the first of them; a line that does not name the hash of the one
 * before it replaced it. The stream may lack lines (the store was down, its
 * cap dropped the oldest) but never holds them out of order. A chain that does
 * not end on a checkpoint is open: its writer runs, was killed, or the lines
 * after its last checkpoint were cut, which nothing in the file can tell apart.
 */
import * as Chain from "./Chain.js"

export interface Source {
  /** A file's path, or `stream <key>`. */
  readonly name: string
  readonly kind: "file" | "stream"
  /** The lines' bytes, without their newlines, in the source's order. */
  readonly lines: ReadonlyArray<Uint8Array>
}

/** Where a line is: its source and its line number there (1-based). */
interface Where {
  readonly source: string
  readonly line: number
}

interface Problem extends Where {
  readonly problem: string
}

interface Unknown extends Where {
  readonly writer: string
  readonly fields: Record<string, unknown>
}

interface WriterSummary {
  readonly writer: string
  readonly lines: number
  readonly first: number
  readonly last: number
  /** The last checkpoint's place (signed and verified when a key was given), if any. */
  readonly checkpoint?: Where & { readonly seq: number }
  /** The chain ends on a checkpoint. */
  readonly sealed: boolean
  readonly closed: boolean
  /** Where the lines not sealed by a checkpoint begin. */
  readonly openFrom?: Where
}

export interface Report {
  readonly status: "holds" | "broken" | "open" | "empty"
  /** Problems in the order of the sources and their lines: the first is the first broken line. */
  readonly problems: ReadonlyArray<Problem>
  readonly writers: ReadonlyArray<WriterSummary>
  /** Changes whose intent has no outcome. */
  readonly unknown: ReadonlyArray<Unknown>
  readonly checkpoints: { readonly signed: number; readonly checked: boolean }
  readonly notes: ReadonlyArray<string>
}

interface Entry extends Where {
  readonly seq: number
  readonly prev: string
  readonly hash: string
  readonly fields: Record<string, unknown>
  readonly kinds: Set<Source["kind"]>
}

const at = (where: Where) => `${where.source}:${where.line}`

type Sealed = Extract<Chain.Read, { readonly _tag: "Sealed" }>

/** Where a writer's lines stand in one file: its highest seq, the last line read, the line that holds the highest. */
interface Last {
  readonly seq: number
  readonly hash: string
  readonly where: Where
  readonly highest: Where
}

/** What a reading of the sources has found: each writer's chain, each file's last lines, the problems. */
class Reading {
  readonly problems: Array<Problem> = []
  readonly notes: Array<string> = []
  readonly chains = new Map<string, Map<number, Entry>>()
  /** The last line of each writer in each file, to tell a cut file from a rotated one. */
  readonly fileEnds: Array<{ readonly writer: string; readonly seq: number; readonly where: Where }> = []
  readonly unknown: Array<Unknown> = []
  signed = 0
  private readonly seen = new Set<string>()

  /** One problem a line: the first found says the most. */
  broken(where: Where, problem: string): void {
    if (this.seen.has(at(where))) return
    this.seen.add(at(where))
    this.problems.push({ source: where.source, line: where.line, problem })
  }

  /** A source's lines in order, each checked against its writer's line before it in the source, and put in its chain. */
  readSource(source: Source): void {
    const last = new Map<string, Last>()
    for (const [index, bytes] of source.lines.entries()) {
      const where = { source: source.name, line: index + 1 }
      const read: Chain.Read = bytes.length === 0 ? { _tag: "Broken", problem: "an empty line" } : Chain.read(bytes)
      if (read._tag === "Broken") {
        this.broken(where, read.problem)
        continue
      }
      const before = last.get(read.writer)
      if (before !== undefined) this.follows(source, before, read, where)
      const ahead = before !== undefined && before.seq >= read.seq
      last.set(read.writer, {
        seq: ahead ? before.seq : read.seq,
        hash: read.hash,
        where,
        highest: ahead ? before.highest : where,
      })
      this.chain(source, read, where)
    }
    if (source.kind === "file") {
      for (const [writer, end] of last) this.fileEnds.push({ writer, seq: end.seq, where: end.where })
    }
  }

  /** A line after its writer's line before it in the same source: in order, none missing between (in a file), chained. */
  private follows(source: Source, before: Last, read: Sealed, where: Where): void {
    if (read.seq <= before.seq) {
      // The line out of place is the one that came too early: the first of two swapped lines.
      this.broken(
        before.highest,
        `out of order: it holds seq ${before.seq} of writer ${read.writer}, before seq ${read.seq} at ${at(where)}: lines were swapped or moved`,
      )
    } else if (read.seq > before.seq + 1 && source.kind === "file") {
      const missing = read.seq - before.seq - 1
      this.broken(
        where,
        `seq jumps from ${before.seq} to ${read.seq} (writer ${read.writer}): ${missing === 1 ? "the line" : `${missing} lines`} before it ${missing === 1 ? "was" : "were"} removed or moved`,
      )
    } else if (read.seq === before.seq + 1 && read.prev !== before.hash) {
      this.broken(
        where,
        `it does not follow ${at(before.where)} (its prev is not that line's hash): a line was replaced`,
      )
    }
  }

  /** The line in its writer's chain, once whichever sources hold it; the same line that differs is a problem. */
  private chain(source: Source, read: Sealed, where: Where): void {
    let chain = this.chains.get(read.writer)
    if (chain === undefined) {
      chain = new Map()
      this.chains.set(read.writer, chain)
    }
    const known = chain.get(read.seq)
    if (known === undefined) {
      chain.set(read.seq, {
        ...where,
        seq: read.seq,
        prev: read.prev,
        hash: read.hash,
        fields: read.fields,
        kinds: new Set([source.kind]),
      })
    } else if (known.hash !== read.hash) {
      this.broken(
        where,
        `it differs from ${at(known)}, the same line (writer ${read.writer}, seq ${read.seq}) elsewhere`,
      )
    } else known.kinds.add(source.kind)
  }

  /** A writer's chain from its first line: whole, each line after the one before, its checkpoints good, its intents answered. */
  walk(writer: string, chain: Map<number, Entry>, key: Uint8Array | undefined): WriterSummary {
    const entries = [...chain.values()].sort((a, b) => a.seq - b.seq)
    const first = entries[0] as Entry
    if (first.seq !== 0) {
      if (first.kinds.has("file")) {
        this.broken(
          first,
          `the chain of writer ${writer} starts at seq ${first.seq}: the lines before it are missing (give the earlier, rotated files too)`,
        )
      } else {
        this.notes.push(`writer ${writer}: the stream begins at seq ${first.seq} (its cap dropped the lines before)`)
      }
    }
    const checkpoint = this.links(writer, entries, key)
    const lastEntry = entries[entries.length - 1] as Entry
    const sealed = lastEntry.fields.phase === "checkpoint" && checkpoint?.seq === lastEntry.seq
    const after = entries.find((entry) => entry.seq > (checkpoint?.seq ?? -1))
    this.cut(writer, lastEntry)
    return {
      writer,
      lines: entries.length,
      first: first.seq,
      last: lastEntry.seq,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      sealed,
      closed: sealed && lastEntry.fields.final === true,
      ...(sealed || after === undefined ? {} : { openFrom: { source: after.source, line: after.line } }),
    }
  }

  /** Each line of a chain after the one before: the intents left without an outcome, and the last good checkpoint. */
  private links(writer: string, entries: ReadonlyArray<Entry>, key: Uint8Array | undefined) {
    let checkpoint: WriterSummary["checkpoint"]
    let previous: Entry | undefined
    const intents = new Map<number, Entry>()
    for (const entry of entries) {
      if (previous !== undefined && entry.seq !== previous.seq + 1) {
        this.broken(
          entry,
          `writer ${writer}: seq ${previous.seq + 1} to ${entry.seq - 1} are in no source given: removed`,
        )
      } else if (previous !== undefined && entry.prev !== previous.hash) {
        this.broken(entry, `it does not follow ${at(previous)} (its prev is not that line's hash): a line was replaced`)
      }
      const { phase } = entry.fields
      if (phase === "intent") intents.set(entry.seq, entry)
      if (phase === "outcome" && typeof entry.fields.intent === "number") intents.delete(entry.fields.intent)
      if (phase === "checkpoint") {
        const good = checkpointHolds(entry, writer, key)
        if (good === true) {
          if (key !== undefined) this.signed++
          checkpoint = { source: entry.source, line: entry.line, seq: entry.seq }
        } else this.broken(entry, good)
      }
      previous = entry
    }
    for (const intent of intents.values())
      this.unknown.push({ source: intent.source, line: intent.line, writer, fields: intent.fields })
    return checkpoint
  }

  /** A writer's newest file ends before lines the stream holds: the file's tail was cut. */
  private cut(writer: string, lastEntry: Entry): void {
    const newest = this.fileEnds.filter((end) => end.writer === writer).sort((a, b) => b.seq - a.seq)[0]
    if (newest !== undefined && newest.seq < lastEntry.seq) {
      this.broken(
        newest.where,
        `the file ends at seq ${newest.seq} of writer ${writer}, and ${at(lastEntry)} holds seq ${lastEntry.seq}: the file's tail after this line was cut (or a newer file of this writer was not given)`,
      )
    }
  }
}

/** Reads every source together; `key` (SVC_AUDIT_KEY) checks the checkpoints' signatures. */
export const verify = (sources: ReadonlyArray<Source>, key?: Uint8Array): Report => {
  const reading = new Reading()
  for (const source of sources) reading.readSource(source)
  const writers = [...reading.chains]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([writer, chain]) => reading.walk(writer, chain, key))
  const { problems, unknown, signed, notes } = reading
  problems.sort((a, b) => order(sources, a) - order(sources, b))
  const status =
    problems.length > 0
      ? "broken"
      : reading.chains.size === 0
        ? "empty"
        : writers.some((w) => !w.closed)
          ? "open"
          : "holds"
  return { status, problems, writers, unknown, checkpoints: { signed, checked: key !== undefined }, notes }
}

const order = (sources: ReadonlyArray<Source>, where: Where) =>
  sources.findIndex((source) => source.name === where.source) * 1e9 + where.line

const checkpointHolds = (entry: Entry, writer: string, key: Uint8Array | undefined): true | string => {
  if (key === undefined) return true
  const { mac, time, final } = entry.fields
  if (typeof mac !== "string")
    return "an unsigned checkpoint, where the log is signed with SVC_AUDIT_KEY: it was forged"
  const expected = Chain.mac(key, writer, entry.seq, entry.prev, String(time), final === true)
  return mac === expected
    ? true
    : entry.fields.key !== Chain.keyId(key)
      ? `this checkpoint was signed with another key (${String(entry.fields.key)}, not ${Chain.keyId(key)})`
      : "the checkpoint's signature does not match: it was forged or edited"
}

const describeChange = (fields: Record<string, unknown>) =>
  [fields.time, fields.who ?? fields.caller, fields.tool, fields.selector, fields.target]
    .filter((part) => typeof part === "string" && part !== "")
    .join(" ")

/** The report in words, for a person reading a terminal. */
export const format = (report: Report): string => {
  const out: Array<string> = []
  const [first, ...others] = report.problems
  if (first !== undefined) {
    out.push(`first broken line: ${at(first)}: ${first.problem}`)
    for (const problem of others.slice(0, 9)) out.push(`  then ${at(problem)}: ${problem.problem}`)
    if (others.length > 9) out.push(`  and ${others.length - 9} more`)
  }
  for (const w of report.writers) {
    const sealedAt = w.checkpoint === undefined ? "no checkpoint" : `last checkpoint ${at(w.checkpoint)}`
    const end = w.closed
      ? "closed at a clean stop"
      : w.sealed
        ? "open: ends on a periodic checkpoint, not a clean stop (the writer runs, was killed, or lines after it were cut)"
        : `open: the lines from ${w.openFrom === undefined ? "its start" : at(w.openFrom)} on follow no checkpoint (the writer runs, was killed, or lines after them were cut)`
    out.push(`writer ${w.writer}: ${w.lines} lines, seq ${w.first} to ${w.last}; ${sealedAt}; ${end}`)
  }
  out.push(
    report.checkpoints.checked
      ? `checkpoints signed and verified with SVC_AUDIT_KEY: ${report.checkpoints.signed}`
      : "checkpoints' signatures not checked (no SVC_AUDIT_KEY given): the chain shows edits, but not a chain rewritten from the edit on",
  )
  out.push(...report.notes)
  if (report.unknown.length > 0) {
    out.push(
      `outcome unknown (an intent with no outcome: the server stopped while the change was sent): ${report.unknown.length}`,
    )
    for (const u of report.unknown) out.push(`  ${at(u)}: ${describeChange(u.fields)}`)
  }
  out.push(
    report.status === "holds"
      ? "the chains hold"
      : report.status === "open"
        ? "the chains hold up to their last checkpoints; after them, a cut would not show"
        : report.status === "empty"
          ? "empty: there is no line to verify"
          : "the log is not whole",
  )
  return out.join("\n")
}

/** The command's exit code: 0 when the chains hold and each ends at a clean stop, 1 when a line is broken, 3 when open or empty. */
export const exitCode = (report: Report): number => (report.status === "holds" ? 0 : report.status === "broken" ? 1 : 3)
