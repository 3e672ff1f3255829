/**
 * The audit log's chain: how a line is sealed, and how a sealed line is read
 * back. Pure: no file, no clock; the writer (Audit/Writer.ts) and `audit
 * verify` (Audit/Verify.ts) share it.
 *
 * A sealed line is the JSON text `{"audit":1,"writer":W,"seq":N,"prev":P,...fields,"hash":H}`:
 * H is the SHA-256 (base64url) of the line's bytes before `,"hash":"`, so any
 * change to any byte of the line shows in that line; P is the previous line's
 * H (empty for a writer's first line), so a removed, inserted or moved line
 * shows at the line after it. A writer is one chain: one process's lines, and
 * the lines of a later process that found them at the end of its file.
 * A checkpoint line also carries a MAC (HMAC-SHA256 under SVC_AUDIT_KEY) of
 * its writer, seq, prev, time and whether it closes the chain: without the
 * key no one can rewrite the chain up to a checkpoint and sign it again.
 */

const Crypto = () => process.getBuiltinModule("node:crypto")

/** The format's version: the first field of every sealed line. */
const VERSION = 1

/** Where a writer's chain stands: the next line's seq, and the hash the next line names as its `prev`. */
export interface ChainState {
  readonly writer: string
  readonly seq: number
  readonly prev: string
}

/** A new chain: seq 0, no previous line. */
export const start = (writer: string): ChainState => ({ writer, seq: 0, prev: "" })

const HASH_MARK = ',"hash":"'

const hashOf = (bytes: string | Uint8Array): string => Crypto().createHash("sha256").update(bytes).digest("base64url")

/**
 * The line (without its newline) of `fields` sealed as the chain's next, and the
 * state after it. `fields` must not name the chain's own fields.
 */
export const seal = (
  state: ChainState,
  fields: Readonly<Record<string, unknown>>,
): { readonly line: string; readonly next: ChainState } => {
  const body = JSON.stringify({ audit: VERSION, writer: state.writer, seq: state.seq, prev: state.prev, ...fields })
  const head = body.slice(0, -1)
  const hash = hashOf(head)
  return { line: `${head}${HASH_MARK}${hash}"}`, next: { writer: state.writer, seq: state.seq + 1, prev: hash } }
}

/** What a checkpoint's MAC covers: the chain's position, its time, and whether it closes the chain. */
const macInput = (writer: string, seq: number, prev: string, time: string, final: boolean) =>
  JSON.stringify(["svc-mcp audit checkpoint", writer, seq, prev, time, final])

export const mac = (key: Uint8Array, writer: string, seq: number, prev: string, time: string, final: boolean): string =>
  Crypto()
    .createHmac("sha256", key)
    .update(macInput(writer, seq, prev, time, final))
    .digest("base64url")

/** A short, non-secret name for a key, so that a reader knows which key signed a checkpoint. */
export const keyId = (key: Uint8Array): string =>
  Crypto().createHash("sha256").update("svc-mcp audit key id\u0000").update(key).digest("base64url").slice(0, 12)

/** The fields of a checkpoint at `state`, signed when a key is given. */
export const checkpoint = (
  state: ChainState,
  time: string,
  final: boolean,
  key: Uint8Array | undefined,
): Record<string, unknown> => ({
  phase: "checkpoint",
  time,
  ...(final ? { final: true } : {}),
  ...(key === undefined ? {} : { key: keyId(key), mac: mac(key, state.writer, state.seq, state.prev, time, final) }),
})

/** A line read back. */
export type Read =
  | {
      readonly _tag: "Sealed"
      readonly writer: string
      readonly seq: number
      readonly prev: string
      readonly hash: string
      readonly fields: Record<string, unknown>
    }
  | { readonly _tag: "Broken"; readonly problem: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Reads one line's bytes (without the newline): Sealed where its chain fields
 * hold, else Broken, with why.
 */
export const read = (bytes: Uint8Array): Read => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
  const marked = text.startsWith('{"audit":') || text.includes(HASH_MARK) || text.includes('"prev":"')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { _tag: "Broken", problem: marked ? "it is not JSON: it was edited or cut" : "it is not a JSON line" }
  }
  if (!isRecord(parsed)) return { _tag: "Broken", problem: "it is not a JSON object" }
  if (!marked) return { _tag: "Broken", problem: "it has no chain fields: it was inserted or edited" }
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const at = raw.lastIndexOf(HASH_MARK)
  const { audit, writer, seq, prev, hash } = parsed
  if (
    at < 0 ||
    audit !== VERSION ||
    typeof writer !== "string" ||
    typeof seq !== "number" ||
    !Number.isSafeInteger(seq) ||
    seq < 0 ||
    typeof prev !== "string" ||
    typeof hash !== "string" ||
    raw.subarray(at + HASH_MARK.length).toString("utf8") !== `${hash}"}`
  ) {
    return { _tag: "Broken", problem: "its chain fields are missing or malformed: it was edited" }
  }
  if (hashOf(raw.subarray(0, at)) !== hash) {
    return { _tag: "Broken", problem: "its hash does not match its content: it was edited" }
  }
  return { _tag: "Sealed", writer, seq, prev, hash, fields: parsed }
}
