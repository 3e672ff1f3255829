/**
 * Credentials inside untrusted text: what a log line, a label or a committed
 * file may hold beyond the secrets this server knows (those are redacted by
 * Tools/AnswerBounds.ts and Shared/Secrets.ts). Each match is replaced whole by
 * a mask that names its kind; nothing else in the text changes.
 */

export interface Shape {
  readonly kind: string
  readonly pattern: RegExp
  /** For `key=value` pairs: the groups kept before the value (the key and its separator). */
  readonly keep?: number
}

/** The mask put where a credential of `kind` was. */
const maskOf = (kind: string) => `[masked: ${kind}]`

/** Any mask, as `maskOf` writes them. */
export const MASK = /\[masked: [a-z0-9 ]+\]/g

export const SHAPES: ReadonlyArray<Shape> = [
  {
    kind: "private key",
    // Unterminated too: a key cut by a log's line limit is still a key.
    pattern:
      /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "aws access key", pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  { kind: "github token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: "gitlab token", pattern: /\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,255}/g },
  { kind: "slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g },
  { kind: "google api key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "stripe key", pattern: /\b(?:sk|rk)_live_[0-9a-zA-Z]{24,255}/g },
  { kind: "npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  {
    kind: "azure storage key",
    pattern: /\b(AccountKey=)([A-Za-z0-9+/]{40,}={0,2})/g,
    keep: 1,
  },
  {
    kind: "password",
    // A command line's flag: `--password hunter2`, `-token=abc`.
    pattern:
      /(\s--?[A-Za-z0-9_-]*(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key)[A-Za-z0-9_-]*)(\s+|=)((?!\[masked: )[^\s"',;&-][^\s"',;&]{0,511})/gi,
    keep: 2,
  },
  {
    kind: "password",
    // `password=...`, `DB_PASSWORD: "..."`, `--password ...`, `api_key=...`: the key and its separator stay, the value is masked.
    // The match starts at the key's telling word (what comes before it in the key stays as it is), so that
    // the scan looks for a few words rather than trying a key at every position.
    pattern:
      /((?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_.-]*["']?)(\s*[=:]\s*|\s+(?=["']))("[^"\n]{1,512}"|'[^'\n]{1,512}'|(?!\[masked: )[^\s"',;&]{1,512})/gi,
    keep: 2,
  },
]

/** Masks every credential-looking span of `text`. */
export const mask = (text: string): string => {
  let out = text
  for (const shape of SHAPES) {
    shape.pattern.lastIndex = 0
    if (!shape.pattern.test(out)) continue
    shape.pattern.lastIndex = 0
    const keep = shape.keep ?? 0
    out = out.replace(shape.pattern, (...groups: Array<string>) => {
      const kept = groups.slice(1, keep + 1).join("")
      return `${kept}${maskOf(shape.kind)}`
    })
  }
  return out
}
