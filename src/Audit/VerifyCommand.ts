/**
 * `svc-mcp audit verify [--store URL [--prefix P]] FILE...`: reads the files
 * (and the shared store's audit stream), verifies them together
 * (Audit/Verify.ts) with SVC_AUDIT_KEY when it is given, and says what it
 * found on stderr. Loaded only when the command runs.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { STREAM_KEY } from "../Operations/Audit.js"
import * as Settings from "../Settings/Audit.js"
import type { ConfigError } from "../Settings/Read.js"
import { DEFAULT_PREFIX } from "../Settings/Store.js"
import * as Verify from "./Verify.js"

const Fs = process.getBuiltinModule("node:fs")

export interface Options {
  readonly files: ReadonlyArray<string>
  /** A redis:// URL: its audit stream is read with the files. */
  readonly store?: string
  /** The store's key prefix (SVC_MCP_STORE_PREFIX), `svc-mcp:` by default. */
  readonly prefix?: string
}

const PAGE = 1000

/** A file's lines as bytes: a hash is of bytes, not of what a decoder made of them. */
const linesOf = (bytes: Buffer): Array<Uint8Array> => {
  const lines: Array<Uint8Array> = []
  let start = 0
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, at))
    start = at + 1
  }
  if (start < bytes.length) lines.push(bytes.subarray(start))
  return lines
}

const readFile = (path: string) =>
  Effect.try({
    try: (): Verify.Source => ({ name: path, kind: "file", lines: linesOf(Fs.readFileSync(path)) }),
    catch: (error) => `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
  })

type StreamReply = ReadonlyArray<readonly [string, ReadonlyArray<string>]>

/** Every line of the store's audit stream, oldest first, a page at a time. */
const readStream = (url: string, prefix: string) =>
  Effect.tryPromise({
    try: async (): Promise<Verify.Source> => {
      const loaded = await import("redis")
      const redis = "createClient" in loaded ? loaded : (loaded as unknown as { default: typeof loaded }).default
      const client = redis.createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 5_000 } })
      client.on("error", () => undefined)
      await client.connect()
      try {
        const key = `${prefix}${STREAM_KEY}`
        const lines: Array<Uint8Array> = []
        for (let start = "-"; ; ) {
          const page = (await client.sendCommand(["XRANGE", key, start, "+", "COUNT", String(PAGE)])) as StreamReply
          for (const [, fields] of page) {
            const at = fields.indexOf("line")
            lines.push(Buffer.from(at >= 0 ? (fields[at + 1] ?? "") : "", "utf8"))
          }
          if (page.length < PAGE) break
          start = `(${(page.at(-1) as readonly [string, unknown])[0]}`
        }
        return { name: `stream ${key}`, kind: "stream", lines }
      } finally {
        await client.close().catch(() => undefined)
      }
    },
    // node-redis's messages name the command, never the URL's password.
    catch: (error) =>
      `the store's audit stream cannot be read (${error instanceof Error ? error.message : String(error)})`,
  })

/** The report's exit code (0, 1 or 3), or 2 with a line on stderr when a source cannot be read. */
export const run = (options: Options): Effect.Effect<number, ConfigError> =>
  Effect.gen(function* () {
    const key = yield* Settings.loadKey
    const sources: Array<Verify.Source> = []
    for (const file of options.files) {
      const source = yield* Effect.either(readFile(file))
      if (source._tag === "Left") {
        yield* Console.error(`svc-mcp: audit verify: ${source.left}`)
        return 2
      }
      sources.push(source.right)
    }
    if (options.store !== undefined) {
      const stream = yield* Effect.either(readStream(options.store, options.prefix ?? DEFAULT_PREFIX))
      if (stream._tag === "Left") {
        yield* Console.error(`svc-mcp: audit verify: ${stream.left}`)
        return 2
      }
      sources.push(stream.right)
    }
    const report = Verify.verify(sources, Option.getOrUndefined(Option.map(key, Redacted.value)))
    yield* Console.error(Verify.format(report))
    return Verify.exitCode(report)
  })
