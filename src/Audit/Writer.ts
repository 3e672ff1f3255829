/**
 * The audit file's writer: lines sealed into one chain (Audit/Chain.ts),
 * appended, and flushed to the device (fdatasync) before their callers go on
 * when they ask for it (an intent, a checkpoint). Lines that come while a
 * write is under way wait for the next, and share it (group commit): fifty
 * concurrent changes cost a flush or two, not fifty.
 *
 * A line is sealed when its batch is written, so that a batch that fails
 * (a full disk) leaves the chain where the file's last whole line left it:
 * the file is cut back to its size before the batch, and the next batch
 * goes on from there. A file that ends with a sealed line is continued: its
 * writer's chain goes on across restarts, across SIGHUP (`reopen`), which
 * logrotate sends after moving the file away, and across the writer's own
 * move of a full file (`maxBytes`).
 */
import * as Chain from "./Chain.js"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export.
const Fs = process.getBuiltinModule("node:fs")

export interface WriterOptions {
  /** The file; undefined for stderr, which is neither flushed nor continued. */
  readonly path: string | undefined
  /** The writer's id when the file does not end with a sealed line to continue. */
  readonly writer: string
  /** SVC_AUDIT_KEY: checkpoints are signed with it. */
  readonly key: Uint8Array | undefined
  /** How often a checkpoint is written when lines came since the last one; 0 for never. */
  readonly checkpointMs: number
  /** Once the file holds this many bytes, it is moved aside to `<path>.<time>` and a new one begun. */
  readonly maxBytes?: number
  /** Each batch's lines, once in the file, in the chain's order. */
  readonly onWritten?: (lines: ReadonlyArray<string>) => void
  /** The file was reopened (SIGHUP), or could not be. */
  readonly onReopen?: (error: unknown) => void
  readonly now?: () => string
}

type Fields = Readonly<Record<string, unknown>> | ((state: Chain.ChainState) => Readonly<Record<string, unknown>>)

interface Waiting {
  readonly fields: Fields
  readonly sync: boolean
  readonly resolve: (seq: number) => void
  readonly reject: (cause: unknown) => void
}

/** How much of a file's end is read for its last line, to continue its chain. */
const TAIL_BYTES = 256 * 1024

// Read too: a chain found at the end of the file goes on.
const openFile = (path: string) => Fs.openSync(path, "a+", 0o640)

/** The chain the file's last line ends, when it is a sealed line. */
const resumeFrom = (fd: number, size: number): Chain.ChainState | undefined => {
  if (size === 0) return undefined
  const length = Math.min(size, TAIL_BYTES)
  const buffer = Buffer.alloc(length)
  Fs.readSync(fd, buffer, 0, length, size - length)
  if (buffer[length - 1] !== 0x0a) return undefined
  const start = buffer.lastIndexOf(0x0a, length - 2) + 1
  const read = Chain.read(buffer.subarray(start, length - 1))
  return read._tag === "Sealed" ? { writer: read.writer, seq: read.seq + 1, prev: read.hash } : undefined
}

const writeAll = (fd: number, buffer: Buffer): Promise<void> =>
  new Promise((resolve, reject) => {
    const from = (offset: number) =>
      Fs.write(fd, buffer, offset, buffer.length - offset, null, (error, written) => {
        if (error !== null) reject(error)
        else if (offset + written < buffer.length) from(offset + written)
        else resolve()
      })
    from(0)
  })

const datasync = (fd: number): Promise<void> =>
  new Promise((resolve, reject) =>
    // A device that cannot be flushed (a character device, a pipe) says EINVAL: there is nothing to flush.
    Fs.fdatasync(fd, (error) => (error === null || error.code === "EINVAL" ? resolve() : reject(error))),
  )

export class Writer {
  private queue: Array<Waiting> = []
  private flushing = false
  private reopenWanted = false
  private closed = false
  private sinceCheckpoint = 0
  private readonly timer: ReturnType<typeof setInterval> | undefined
  private readonly now: () => string

  private constructor(
    private readonly options: WriterOptions,
    private fd: number,
    private size: number,
    private state: Chain.ChainState,
  ) {
    this.now = options.now ?? (() => new Date().toISOString())
    this.timer =
      options.checkpointMs > 0
        ? setInterval(() => {
            if (this.sinceCheckpoint > 0) this.checkpoint(false).catch(() => undefined)
          }, options.checkpointMs)
        : undefined
    this.timer?.unref()
  }

  /** Opens the file (throws its error when it cannot be opened) and continues the chain at its end. */
  static open(options: WriterOptions): Writer {
    if (options.path === undefined) return new Writer(options, 2, 0, Chain.start(options.writer))
    const fd = openFile(options.path)
    try {
      const size = Fs.fstatSync(fd).size
      return new Writer(options, fd, size, resumeFrom(fd, size) ?? Chain.start(options.writer))
    } catch (error) {
      Fs.closeSync(fd)
      throw error
    }
  }

  /** The chain's writer id. */
  get writer(): string {
    return this.state.writer
  }

  /**
   * Seals `fields` as the chain's next line; resolves with its seq once the line is in the file,
   * and with `sync`, flushed to the device (which flushes the lines before it too).
   */
  append(fields: Fields, sync = true): Promise<number> {
    if (this.closed) return Promise.reject(new Error("the audit log is closed"))
    return new Promise((resolve, reject) => {
      this.queue.push({ fields, sync, resolve, reject })
      if (!this.flushing) void this.flush()
    })
  }

  /** A checkpoint line, signed when there is a key; `final` at a clean stop. */
  checkpoint(final: boolean): Promise<number> {
    return this.append((state) => Chain.checkpoint(state, this.now(), final, this.options.key))
  }

  /** Reopens the file at its path (SIGHUP): between two batches, so that no batch is split. */
  reopen(): void {
    if (this.options.path === undefined) return
    this.reopenWanted = true
    if (!this.flushing) this.reopenNow()
  }

  /** A last checkpoint, then the file is closed. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    await this.checkpoint(true).catch(() => undefined)
    this.closed = true
    if (this.options.path !== undefined) Fs.closeSync(this.fd)
  }

  private reopenNow() {
    this.reopenWanted = false
    const path = this.options.path as string
    try {
      const next = openFile(path)
      const previous = this.fd
      this.fd = next
      this.size = Fs.fstatSync(next).size
      Fs.closeSync(previous)
      this.options.onReopen?.(undefined)
    } catch (error) {
      this.options.onReopen?.(error)
    }
  }

  /** Size rotation: the full file renamed (its lines keep their chain), the next batch in a new one at the path. */
  private moveAside(path: string) {
    const stamp = this.now()
      .replace(/[-:]/g, "")
      .replace(/\.\d+Z$/, "Z")
    let aside = `${path}.${stamp}`
    for (let n = 1; Fs.existsSync(aside); n++) aside = `${path}.${stamp}-${n}`
    try {
      Fs.renameSync(path, aside)
    } catch (error) {
      this.options.onReopen?.(error)
      return
    }
    this.reopenNow()
  }

  private async flush() {
    this.flushing = true
    try {
      for (;;) {
        if (this.reopenWanted) this.reopenNow()
        const batch = this.queue.splice(0)
        if (batch.length === 0) return
        await this.write(batch)
      }
    } finally {
      this.flushing = false
    }
  }

  private async write(batch: ReadonlyArray<Waiting>) {
    const before = this.state
    const lines: Array<string> = []
    const seqs: Array<number> = []
    let since = this.sinceCheckpoint
    for (const waiting of batch) {
      const fields = typeof waiting.fields === "function" ? waiting.fields(this.state) : waiting.fields
      since = fields.phase === "checkpoint" ? 0 : since + 1
      seqs.push(this.state.seq)
      const sealed = Chain.seal(this.state, fields)
      lines.push(sealed.line)
      this.state = sealed.next
    }
    const buffer = Buffer.from(`${lines.join("\n")}\n`, "utf8")
    try {
      if (this.options.path === undefined) {
        let offset = 0
        while (offset < buffer.length) offset += Fs.writeSync(2, buffer, offset)
      } else {
        await writeAll(this.fd, buffer)
        if (batch.some((waiting) => waiting.sync)) await datasync(this.fd)
      }
    } catch (cause) {
      this.state = before
      // A part of the batch may be in the file: cut back to its last whole line.
      if (this.options.path !== undefined) {
        try {
          Fs.ftruncateSync(this.fd, this.size)
        } catch {
          // A device (or a file another process appends to) is not cut.
        }
      }
      for (const waiting of batch) waiting.reject(cause)
      return
    }
    this.size += buffer.length
    this.sinceCheckpoint = since
    if (this.options.maxBytes !== undefined && this.options.path !== undefined && this.size >= this.options.maxBytes) {
      this.moveAside(this.options.path)
    }
    for (const [index, waiting] of batch.entries()) waiting.resolve(seqs[index] as number)
    this.options.onWritten?.(lines)
  }
}
