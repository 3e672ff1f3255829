/**
 * The stdio transport: newline-delimited JSON-RPC over stdin and stdout, given
 * to the SDK's `serveStdio` in place of its own StdioServerTransport, which
 * lacks three things a server in production needs:
 * - a bound on a message: it buffers a line whole and, past its limit, closes
 *   itself, ending every call in flight (here, StdioFraming);
 * - an answer to a request its schema refuses: it drops it without a word, and
 *   the client waits forever (here, StdioMessages);
 * - the answers to the calls in flight when stdin ends: it aborts them (here,
 *   the transport closes only once `drained` says they are answered).
 * Each line is parsed and checked once, by the SDK's own schema. (Put in front of
 * the SDK's transport instead, the same checks cost two more streams, a second
 * parse and a second check of every message.) Writing is the SDK's: one
 * serialized message per line, waiting for `drain` when stdout is full. The
 * sends waiting for it wait together, on one listener: one each, with 200
 * answers in flight, made every `drain` walk and splice a list 200 long 200 times.
 */
import type { Readable, Writable } from "node:stream"
import { type JSONRPCMessage, serializeMessage, type Transport } from "@modelcontextprotocol/server"
import * as StdioFraming from "./StdioFraming.js"
import * as StdioMessages from "./StdioMessages.js"

export interface Options {
  readonly stdin: Readable
  readonly stdout: Writable
  /** Resolves once the messages already read are answered: when stdin ends, the transport closes then. */
  readonly drained: () => Promise<void>
  /** A line that was not served, and why, in a few words that never quote it. */
  readonly warn: (message: string) => void
  /** The largest message read, in bytes. */
  readonly maxMessageBytes?: number
}

export class StdioTransport implements Transport {
  onclose?: Transport["onclose"]
  onerror?: Transport["onerror"]
  onmessage?: Transport["onmessage"]

  private started = false
  private ending = false
  private closed = false
  private readonly framer: StdioFraming.Framer
  private readonly closedWaiters: Array<() => void> = []
  /** The sends written while stdout was full, settled on its next `drain` or `error`. */
  private readonly draining: Array<{ readonly resolve: () => void; readonly reject: (error: Error) => void }> = []

  constructor(private readonly options: Options) {
    const maxBytes = options.maxMessageBytes ?? StdioFraming.MAX_MESSAGE_BYTES
    const read = StdioMessages.reader({
      // The SDK's type leaves out a parse error's null id, which JSON-RPC requires; it is written as given.
      answer: (response) => this.answer(response as unknown as JSONRPCMessage),
      skipped: (why) => options.warn(`a message was skipped: ${why}`),
    })
    this.framer = StdioFraming.framer(
      maxBytes,
      (line) => {
        const message = read(line)
        if (message !== undefined && !this.closed) this.onmessage?.(message)
      },
      ({ id, bytes }) => {
        const message = `Invalid Request: the message is ${bytes} bytes; the largest accepted is ${maxBytes} bytes`
        if (id === undefined) options.warn(`a message without a readable id was skipped. ${message}`)
        else this.answer({ jsonrpc: "2.0", id, error: { code: StdioMessages.INVALID_REQUEST, message } })
      },
    )
  }

  /** Resolves once the transport has closed. */
  readonly whenClosed = (): Promise<void> =>
    this.closed ? Promise.resolve() : new Promise((resolve) => this.closedWaiters.push(resolve))

  private answer(response: JSONRPCMessage): void {
    this.send(response).catch(() => undefined)
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.framer.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
  }

  private readonly onInputError = (error: Error) => this.onerror?.(error)

  private readonly onDrain = () => {
    for (const send of this.draining.splice(0)) send.resolve()
  }

  private readonly onOutputError = (error: Error) => {
    for (const send of this.draining.splice(0)) send.reject(error)
    // Left attached once closed, to swallow a late write's failure.
    if (this.closed) return
    this.onerror?.(error)
    void this.close()
  }

  private readonly onEnd = () => {
    if (this.ending) return
    this.ending = true
    this.framer.end()
    this.options.drained().then(
      () => this.close(),
      () => this.close(),
    )
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioTransport already started")
    this.started = true
    const { stdin, stdout } = this.options
    stdin.on("data", this.onData)
    stdin.on("error", this.onInputError)
    stdin.on("end", this.onEnd)
    stdin.on("close", this.onEnd)
    stdout.on("error", this.onOutputError)
    stdout.on("drain", this.onDrain)
    if (stdin.readableEnded || stdin.destroyed) setImmediate(this.onEnd)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const { stdin } = this.options
    stdin.off("data", this.onData)
    stdin.off("error", this.onInputError)
    stdin.off("end", this.onEnd)
    stdin.off("close", this.onEnd)
    if (stdin.listenerCount("data") === 0) stdin.pause()
    this.onclose?.()
    for (const wake of this.closedWaiters.splice(0)) wake()
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("StdioTransport is closed"))
    if (this.options.stdout.write(serializeMessage(message))) return Promise.resolve()
    return new Promise((resolve, reject) => this.draining.push({ resolve, reject }))
  }
}
