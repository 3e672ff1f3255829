/**
 * Credentials inside untrusted text: what a log line, a label or a committed
 * file may hold beyond the secrets this server knows (those are redacted by
 * Tools/Bounds/AnswerBounds.ts and Shared/Secrets.ts). Each match is replaced whole by
 * a mask that names its kind; nothing else in the text changes.
 *
 * Every shape runs in time linear in the text, whatever the text: a shape is a
 * pattern whose quantifiers neither nest nor overlap (each start is tried at a
 * bounded cost, or its match consumes what it read), or a scanner where a
 * pattern would try again, from every start inside one run, what the first
 * start already read (a JWT, a `password=` pair, a `--token` flag).
 * test/unit/Tools/MaskBounds.test.ts feeds each its worst case at 1 MB.
 */
import { flags, jwts, pairs, type Span } from "./MaskScan.js"

export interface Shape {
  readonly kind: string
  /** The spans of `text` to mask, in order, none overlapping another. */
  readonly find: (text: string) => Iterable<Span>
}

/** The mask put where a credential of `kind` was. */
const maskOf = (kind: string) => `[masked: ${kind}]`

/** Any mask, as `maskOf` writes them. */
export const MASK = /\[masked: [a-z0-9 ]+\]/g

/** A shape of one pattern: `keep` groups (a key and its separator) stay before the mask. */
const pattern = (kind: string, regex: RegExp, keep = 0): Shape => ({
  kind,
  find: function* (text) {
    regex.lastIndex = 0
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      let kept = 0
      for (let group = 1; group <= keep; group++) kept += match[group]?.length ?? 0
      yield { start: match.index, end: match.index + match[0].length, kept }
    }
  },
})

export const SHAPES: ReadonlyArray<Shape> = [
  // Unterminated too: a key cut by a log's line limit is still a key. Linear: a start whose
  // header matches always matches, up to its end line or the end of the text.
  pattern(
    "private key",
    /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|$)/g,
  ),
  { kind: "jwt", find: jwts },
  pattern("aws access key", /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g),
  pattern("github token", /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g),
  pattern("gitlab token", /\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,255}/g),
  pattern("slack token", /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g),
  pattern("google api key", /\bAIza[0-9A-Za-z_-]{35}/g),
  pattern("stripe key", /\b(?:sk|rk)_live_[0-9a-zA-Z]{24,255}/g),
  pattern("npm token", /\bnpm_[A-Za-z0-9]{36}\b/g),
  pattern("azure storage key", /\b(AccountKey=)([A-Za-z0-9+/]{40,}={0,2})/g, 1),
  // A command line's flag: `--password hunter2`, `-token=abc`.
  { kind: "password", find: flags },
  // `password=...`, `DB_PASSWORD: "..."`, `api_key=...`: the key and its separator stay, the value is masked.
  { kind: "password", find: pairs },
]

/** `text` with the spans `shape` finds in it masked. */
const apply = (text: string, shape: Shape): string => {
  let out = ""
  let at = 0
  for (const span of shape.find(text)) {
    out += `${text.slice(at, span.start + span.kept)}${maskOf(shape.kind)}`
    at = span.end
  }
  return at === 0 ? text : out + text.slice(at)
}

/** Masks every credential-looking span of `text`. */
export const mask = (text: string): string => SHAPES.reduce(apply, text)
