/**
 * What an answer may show: credentials redacted, and no more text than an
 * assistant's context should take, with a note saying what was left out.
 */
import { REDACTED } from "../../Shared/Secrets.js"

/**
 * Field names that hold a credential. `is_secret` flags a variable whose `value` is one.
 * `passkey`: a server's and a URL builder's, which their agent is reached with; `SigningCAKey`:
 * a swarm's CA key, in PEM.
 */
export const CREDENTIAL = /secret|passw(or)?d|passphrase|passkey|token|private_?key|signing_?ca_?key|jwt|credential/i

/**
 * Whether a JSON text may hold something `redact` would hide: a credential-named
 * key with a string or a record for its value, or a secret variable. A quick scan, so that most
 * answers are passed on as they came.
 */
export const mayHoldSecrets = (text: string): boolean =>
  // First the words alone, anywhere: most answers hold none, and that search is about four times
  // quicker than the keys' (35 KB: 24 µs against 100). `is_secret` holds one of them.
  CREDENTIAL.test(text) &&
  // The word is looked for ahead, once per key: tried again at every split of the key, a key of many
  // such words would take time quadratic in its length.
  (/"(?=[^"]*?(?:secret|passw(?:or)?d|passphrase|passkey|token|private_?key|signing_?ca_?key|jwt|credential))[^"]*"\s*:\s*["{]/i.test(
    text,
  ) ||
    /"is_secret"\s*:\s*true/.test(text))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Replaces credential fields' string values, and secret variables' values, at any depth. A
 * credential-named record's own strings are credentials too: a swarm's `JoinTokens` holds its
 * `Worker` and `Manager` tokens, with which anyone reaching the swarm joins it.
 */
export const redact = (value: unknown, credentials = false): unknown => {
  if (Array.isArray(value)) return value.map((item) => redact(item))
  if (!isRecord(value)) return value
  const secretValue = value.is_secret === true && typeof value.value === "string" && value.value !== ""
  // fromEntries, not assignment: a key named "__proto__" stays an own field instead of becoming the prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      const credential = CREDENTIAL.test(key)
      const hidden = typeof field === "string" && field !== "" && (credentials || credential)
      return [key, hidden || (secretValue && key === "value") ? REDACTED : redact(field, credential && isRecord(field))]
    }),
  )
}

/** A note after an answer, set apart from its JSON so that the JSON stays whole. */
export const note = (text: string) => `\n[svc-mcp: ${text}]`

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
const cut = (text: string, max: number) => {
  const end = Math.max(0, max)
  const code = text.charCodeAt(end - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end)
}

/**
 * Fits the JSON of `data` into `max` characters. An array keeps as many whole
 * items as fit, so what is shown is still valid JSON; anything else is cut.
 * The note names `stated` as the limit: the budget as the operator set it, where
 * part of `max` went to what the answer carries besides (untrusted text's fences).
 */
export const withinBudget = (data: unknown, text: string, max: number, narrow: string, stated = max): string =>
  fitInBudget(data, text, max, narrow, stated).text

/** What `withinBudget` keeps: its text, and of a list cut between whole items, how many it shows. */
export interface Fitted {
  readonly text: string
  readonly items?: number
}

/** `withinBudget`, saying how many whole items of a cut list it kept. */
export const fitInBudget = (data: unknown, text: string, max: number, narrow: string, stated = max): Fitted => {
  if (text.length <= max) return { text }
  const advice = `narrow the request: ${narrow}`
  if (Array.isArray(data)) {
    const tail = (shown: number) =>
      note(`output cut to fit ${stated} characters: showing ${shown} of ${data.length} items; ${advice}`)
    let shown = 0
    let length = 2
    for (const item of data) {
      const next = length + (shown === 0 ? 0 : 1) + (JSON.stringify(item) ?? "null").length
      if (next + tail(shown + 1).length > max) break
      length = next
      shown++
    }
    return { text: `${JSON.stringify(data.slice(0, shown))}${tail(shown)}`, items: shown }
  }
  // The note's own length depends on the numbers in it; 300 characters is room enough for it.
  const kept = cut(text, max - Math.min(300, Math.floor(max / 2)))
  const tail = note(
    `output cut to fit ${stated} characters: ${text.length - kept.length} of ${text.length} characters left out; ${advice}`,
  )
  return { text: `${kept}${tail}` }
}

/** The note for a list that came back as exactly the service's default page (`page` items). */
export const pageNote = (data: unknown, page: number): string =>
  Array.isArray(data) && data.length === page
    ? note(
        `${page} items, the service's default page: more may exist. Pass params.limit (0 for all) or params.page to see more`,
      )
    : ""
