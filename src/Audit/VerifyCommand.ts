/**
 * `svc-mcp audit verify [--store URL [--prefix P]] FILE...`: reads the files
 * (and the shared store's audit stream, with the password the server reads,
 * SVC_MCP_STORE_PASSWORD or its _FILE), verifies them together
 * (Audit/Verify.ts) with SVC_AUDIT_KEY when it is given, and says what it
 * found on stderr. Loaded only when the command runs.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Settings from "../Settings/Audit.js"
import type { ConfigError } from "../Settings/Read.js"
import * as StoreSettings from "../Settings/Store.js"
import { DEFAULT_PREFIX } from "../Settings/Store.js"
import * as Verify from "./Verify.js"
import { STREAM_KEY } from "./Writer.js"

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

/** What to do when the store refuses for want of the right password: the settings the server reads it from. */
const PASSWORD_HINT =
  "give the store's password as the server has it, in SVC_MCP_STORE_PASSWORD or the file SVC_MCP_STORE_PASSWORD_FILE names, rather than in the URL, where ps shows it"

/** node-redis's words, with what to do where the store asked for a password (NOAUTH) or refused the one given (WRONGPASS). */
const streamFailure = (error: unknown, password: boolean): string => {
  const text = error instanceof Error ? error.message : String(error)
  const hint = text.startsWith("NOAUTH")
    ? `: the store asks for a password; ${PASSWORD_HINT}`
    : text.startsWith("WRONGPASS")
      ? `: the store refused the password${password ? "" : " in the URL"}; ${PASSWORD_HINT}`
      : ""
  return `the store's audit stream cannot be read (${text})${hint}`
}

/** Every line of the store's audit stream, oldest first, a page at a time. */
const readStream = (url: string, prefix: string, password: Option.Option<Redacted.Redacted<string>>) =>
  Effect.tryPromise({
    try: async (): Promise<Verify.Source> => {
      const loaded = await import("redis")
      const redis = "createClient" in loaded ? loaded : (loaded as unknown as { default: typeof loaded }).default
      const client = redis.createClient({
        url,
        ...(Option.isSome(password) ? { password: Redacted.value(password.value) } : {}),
        socket: { reconnectStrategy: false, connectTimeout: 5_000 },
      })
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
    catch: (error) => streamFailure(error, Option.isSome(password)),
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
      const password = yield* StoreSettings.loadPassword
      const stream = yield* Effect.either(readStream(options.store, options.prefix ?? DEFAULT_PREFIX, password))
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
