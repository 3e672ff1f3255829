/**
 * Newline-delimited JSON-RPC framing for stdio with a bound on one message's size.
 *
 * The SDK's stdio transport buffers a line whole and, past its buffer's limit, closes
 * itself: one oversized message would end the server and every call in flight. Here a
 * line over the bound is never buffered: it is skipped as it streams past, while a small
 * scanner reads its top-level `id`, so that the sender can be answered with an error.
 */

/** The largest message accepted, over stdio as over HTTP. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024

export interface Oversized {
  /** The message's top-level `id`, when it has one that could be read. */
  readonly id: string | number | undefined
  /** Its length in bytes, without the line's end. */
  readonly bytes: number
}

const NEWLINE = 0x0a
const QUOTE = 0x22
const BACKSLASH = 0x5c
/** An id longer than this is not read: no client makes one, and it is not kept in memory. */
const MAX_ID_CHARS = 256

/**
 * Reads the value of the top-level `"id"` member of a JSON object as its bytes stream
 * by, keeping nothing else. JSON's structural characters are ASCII, so bytes will do.
 */
export class IdScanner {
  private depth = 0
  private inString = false
  private escaped = false
  private expectKey = false
  private key: Array<number> | undefined
  private lastKey = ""
  private wantValue = false
  private value: Array<number> | undefined
  private valueIsString = false
  private found: string | number | undefined
  private done = false

  get id(): string | number | undefined {
    if (!this.done && this.value !== undefined && !this.valueIsString) this.finishValue()
    return this.found
  }

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.done; i++) this.step(bytes[i] as number)
  }

  private finishValue(): void {
    const raw = Buffer.from(this.value ?? []).toString("utf8")
    this.value = undefined
    this.done = true
    try {
      const parsed: unknown = JSON.parse(this.valueIsString ? `"${raw}"` : raw)
      if (typeof parsed === "string" || (typeof parsed === "number" && Number.isFinite(parsed))) this.found = parsed
    } catch {
      // Not a readable id: the message is answered as one without an id.
    }
  }

  private step(byte: number): void {
    if (this.inString) {
      const collecting = this.key ?? (this.valueIsString ? this.value : undefined)
      if (this.escaped) {
        this.escaped = false
      } else if (byte === BACKSLASH) {
        this.escaped = true
      } else if (byte === QUOTE) {
        this.inString = false
        if (this.key !== undefined) {
          this.lastKey = Buffer.from(this.key).toString("utf8")
          this.key = undefined
        } else if (this.value !== undefined) {
          return this.finishValue()
        }
        return
      }
      if (collecting !== undefined) {
        if (collecting.length >= MAX_ID_CHARS) {
          // A key this long is not "id"; a value this long is not kept.
          if (this.key !== undefined) this.key = undefined
          else this.done = true
          return
        }
        collecting.push(byte)
      }
      return
    }
    if (this.value !== undefined) {
      // A number (or a literal) goes on until a delimiter.
      if (byte === 0x2c || byte === 0x7d || byte === 0x5d || byte <= 0x20) return this.finishValue()
      if (this.value.length >= MAX_ID_CHARS) {
        this.done = true
        return
      }
      this.value.push(byte)
      return
    }
    if (byte <= 0x20) return
    if (this.wantValue) {
      this.wantValue = false
      if (byte === QUOTE) {
        this.inString = true
        this.valueIsString = true
        this.value = []
      } else if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
        this.valueIsString = false
        this.value = [byte]
      } else {
        this.done = true
      }
      return
    }
    switch (byte) {
      case QUOTE:
        this.inString = true
        if (this.depth === 1 && this.expectKey) {
          this.key = []
          this.expectKey = false
        }
        return
      case 0x7b: // {
        this.depth++
        if (this.depth === 1) this.expectKey = true
        return
      case 0x5b: // [
        if (this.depth === 0) this.done = true // a batch has no id of its own
        this.depth++
        return
      case 0x7d: // }
      case 0x5d: // ]
        this.depth--
        if (this.depth <= 0) this.done = true
        return
      case 0x2c: // ,
        if (this.depth === 1) this.expectKey = true
        return
      case 0x3a: // :
        if (this.depth === 1 && this.lastKey === "id") this.wantValue = true
        this.lastKey = ""
        return
      default:
        return
    }
  }
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
  let skipping: { scanner: IdScanner; bytes: number; endsWithCr: boolean } | undefined

  const startSkipping = (segment: Buffer) => {
    const scanner = new IdScanner()
    for (const part of pending) scanner.feed(part)
    scanner.feed(segment)
    const last = segment.length > 0 ? segment[segment.length - 1] : pending.at(-1)?.at(-1)
    skipping = { scanner, bytes: pendingBytes + segment.length, endsWithCr: last === 0x0d }
    pending = []
    pendingBytes = 0
  }

  const lineEnded = () => {
    if (skipping !== undefined) {
      const { scanner, bytes, endsWithCr } = skipping
      skipping = undefined
      onOversized({ id: scanner.id, bytes: endsWithCr ? bytes - 1 : bytes })
      return
    }
    // One chunk holds most lines whole: no copy then.
    const line = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes)
    const bytes = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length
    pending = []
    pendingBytes = 0
    if (bytes > maxBytes) {
      const scanner = new IdScanner()
      scanner.feed(line)
      onOversized({ id: scanner.id, bytes })
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
        skipping.scanner.feed(segment)
        skipping.bytes += segment.length
        if (segment.length > 0) skipping.endsWithCr = segment[segment.length - 1] === 0x0d
      } else if (pendingBytes + segment.length > maxBytes + 1) {
        // One byte of slack for a "\r" before the "\n".
        startSkipping(segment)
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
