/**
 * Newline-delimited JSON-RPC framing for stdio with a bound on one message's size.
 *
 * The SDK's stdio transport buffers a line whole and, past its buffer's limit, closes
 * itself: one oversized message would end the server and every call in flight. Here a
 * line over the bound is never buffered: it is skipped as it streams past, keeping only
 * an outline of its top level, so that a request can be answered with an error and its id.
 */
import { requestId } from "./StdioMessages.js"

/** The largest message accepted, over stdio as over HTTP. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024

export interface Oversized {
  /** The id of the request it is, when its outline shows one (see StdioMessages.requestId). */
  readonly id: string | number | undefined
  /** Its length in bytes, without the line's end. */
  readonly bytes: number
}

const NEWLINE = 0x0a
const QUOTE = 0x22
const BACKSLASH = 0x5c
const ZERO = 0x30
/** A top-level string longer than this (an id, a method) is read as null: no client makes one. */
const MAX_STRING_BYTES = 256
/** An outline longer than this (thousands of top-level members) is not read at all. */
const MAX_OUTLINE_BYTES = 64 * 1024

/**
 * The top level of a JSON text, kept as its bytes stream by: every nested object or
 * array is kept as `0`, every longer string as `null`, so that memory stays bounded
 * whatever the text's size, and `value` is what JSON.parse makes of the rest.
 * JSON's structural characters are ASCII, so bytes will do.
 */
export class Outline {
  private readonly kept = Buffer.allocUnsafe(MAX_OUTLINE_BYTES)
  private length = 0
  private depth = 0
  private inString = false
  private escaped = false
  /** Where the top-level string being read starts in `kept`, after its quote. */
  private stringStart = 0
  private overflow = false

  /** The outline as JSON.parse reads it; undefined when it is not JSON, or too long to keep. */
  get value(): unknown {
    if (this.overflow) return undefined
    try {
      return JSON.parse(this.kept.toString("utf8", 0, this.length))
    } catch {
      return undefined
    }
  }

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.overflow; i++) this.step(bytes[i] as number)
  }

  private keep(byte: number): void {
    if (this.length === this.kept.length) this.overflow = true
    else this.kept[this.length++] = byte
  }

  private step(byte: number): void {
    const top = this.depth <= 1
    if (this.inString) {
      if (this.escaped) this.escaped = false
      else if (byte === BACKSLASH) this.escaped = true
      else if (byte === QUOTE) {
        this.inString = false
        if (top) this.endString()
        return
      }
      // A byte past the longest string kept is not kept: the string is read as null.
      if (top && this.length - this.stringStart <= MAX_STRING_BYTES) this.keep(byte)
      return
    }
    switch (byte) {
      case QUOTE:
        this.inString = true
        if (top) {
          this.keep(QUOTE)
          this.stringStart = this.length
        }
        return
      case 0x7b: // {
      case 0x5b: // [
        this.depth++
        if (this.depth === 1) this.keep(byte)
        else if (this.depth === 2) this.keep(ZERO)
        return
      case 0x7d: // }
      case 0x5d: // ]
        this.depth--
        if (this.depth <= 0) this.keep(byte)
        return
      default:
        if (top) this.keep(byte)
    }
  }

  private endString(): void {
    if (this.length - this.stringStart <= MAX_STRING_BYTES) return this.keep(QUOTE)
    this.length = this.stringStart - 1
    for (const byte of Buffer.from("null")) this.keep(byte)
  }
}

/** The id of the request a line holds, read from its outline. */
const idOf = (line: Uint8Array): string | number | undefined => {
  const outline = new Outline()
  outline.feed(line)
  return requestId(outline.value)
}

/**
 * A line too long to hold, streaming past: only its outline is kept, for the request's id the
 * refusal answers, and its length, less a `\r` that ends it.
 */
interface Skipping {
  readonly outline: Outline
  bytes: number
  endsWithCr: boolean
}

/** `skipping` fed the next parts of its line. */
const skipThrough = (skipping: Skipping, ...parts: ReadonlyArray<Buffer>): Skipping => {
  for (const part of parts) {
    skipping.outline.feed(part)
    skipping.bytes += part.length
    if (part.length > 0) skipping.endsWithCr = part[part.length - 1] === 0x0d
  }
  return skipping
}

export interface Framer {
  /** Takes the next bytes of the input. */
  readonly push: (chunk: Buffer) => void
  /** The input has ended: an unterminated last line is handed on as a line, or reported if too long. */
  readonly end: () => void
}

/**
 * Cuts the input into lines: `onLine` gets each line of at most `maxBytes` bytes, without
 * its `\n` (a `\r` before it is kept: it is JSON whitespace); for each longer line,
 * `onOversized` is called once its end has streamed past.
 */
export const framer = (
  maxBytes: number,
  onLine: (line: Buffer) => void,
  onOversized: (oversized: Oversized) => void,
): Framer => {
  let pending: Array<Buffer> = []
  let pendingBytes = 0
  let skipping: Skipping | undefined

  const lineEnded = () => {
    if (skipping !== undefined) {
      const { outline, bytes, endsWithCr } = skipping
      skipping = undefined
      onOversized({ id: requestId(outline.value), bytes: endsWithCr ? bytes - 1 : bytes })
      return
    }
    // One chunk holds most lines whole: no copy then.
    const line = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes)
    const bytes = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length
    pending = []
    pendingBytes = 0
    if (bytes > maxBytes) {
      onOversized({ id: idOf(line), bytes })
    } else {
      onLine(line)
    }
  }

  const push = (chunk: Buffer) => {
    let start = 0
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start)
      const segment = chunk.subarray(start, end === -1 ? chunk.length : end)
      if (skipping !== undefined) {
        skipThrough(skipping, segment)
      } else if (pendingBytes + segment.length > maxBytes + 1) {
        // One byte of slack for a "\r" before the "\n".
        skipping = skipThrough({ outline: new Outline(), bytes: 0, endsWithCr: false }, ...pending, segment)
        pending = []
        pendingBytes = 0
      } else if (segment.length > 0) {
        pending.push(segment)
        pendingBytes += segment.length
      }
      if (end === -1) break
      lineEnded()
      start = end + 1
    }
  }

  const end = () => {
    if (skipping !== undefined || pendingBytes > 0) lineEnded()
  }

  return { push, end }
}
