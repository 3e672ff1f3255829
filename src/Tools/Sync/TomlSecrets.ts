/**
 * A secret variable's value in a sync's TOML: an export (`ExportAllResourcesToToml`,
 * `ExportResourcesToToml` with `include_variables`: every variable, its value in
 * plain, to an admin), a sync's files (`remote_contents`) and its plan's texts
 * (`variable_updates`' `current` and `proposed`). The field-name redaction of a
 * JSON answer sees none of it: each is one string. So the text is read by a TOML
 * 1.0 parser (TomlRead.ts), which says which variables are secret and what their
 * values are; then each such value is replaced by `"[redacted]"` where the text
 * writes it, the rest of the text kept as it was, for the assistant to read. The
 * result is read again: where it does not read as the parser says it should, and
 * where the text cannot be read at all, the text is hidden whole. Unless
 * SVC_REVEAL_SECRETS.
 *
 * Secret is what the service marks secret: a variable's `is_secret` (the Variable
 * definition). An export's table that does not say `is_secret = false` is taken for
 * secret, the cautious side: the service writes it in every exported table. A sync's
 * files and plan are written by hand, and say it where they do: there a variable is
 * secret where a text says `is_secret = true`, where the service holds it secret
 * (read with the answer, never kept: ListVariables, Names.ts), and where the service
 * cannot be asked or does not know it, unless the plan creates it. In a plan, a
 * variable secret in either text of its change is hidden in both, and in the files.
 */
import { REDACTED } from "../../Shared/Secrets.js"
import { list, record } from "./SyncChanges.js"
import * as TomlRead from "./TomlRead.js"
import { replaceStrings } from "./TomlStrings.js"

/** What a plan's new text shows for a secret value the current text does not hold: that it changes, not what to. */
const REDACTED_NEW = "[redacted: a new value]"

/** What stands for a text that holds a variable and could not be read as TOML (no key of TOML in it). */
export const HIDDEN_WHOLE = "[redacted: this text could not be read as TOML, so all of it is hidden]"

/** The table a variable is written in, and its fields that say its value and its secrecy. */
const VARIABLE = "variable"

/**
 * Whether `text` may hold a variable's table: its key written bare or quoted holds the word, and
 * one spelled with escapes (`"v\u0061riable"`) a backslash. A text of neither is left as it is, unread.
 */
const mayHoldVariables = (text: string): boolean => text.includes(VARIABLE) || text.includes("\\")

/** Which of a text's variables are secret, and how their values are marked. */
interface Hiding {
  readonly secret: (variable: TomlRead.Table) => boolean
  /** The values the plan's current text holds: any other secret value is a new one (REDACTED_NEW). */
  readonly current?: ReadonlySet<string>
}

const MARKS: ReadonlySet<unknown> = new Set([REDACTED, REDACTED_NEW])

/** An export's reading: secret unless it says `is_secret = false`. */
const CAUTIOUS: Hiding = { secret: (v) => v.is_secret !== false }
/** A hand-written text's own reading: secret where it says `is_secret = true`. */
const MARKED: Hiding = { secret: (v) => v.is_secret === true }

const nameOf = (variable: TomlRead.Table): string | undefined =>
  typeof variable.name === "string" ? variable.name : undefined

/**
 * The secret values of a text's variables, to hide: none where it holds none; undefined where one
 * cannot be hidden in place (a value that is no string, which no Variable is).
 */
const secretValues = (table: TomlRead.Table, hiding: Hiding): ReadonlySet<string> | undefined => {
  const values = new Set<string>()
  for (const variable of TomlRead.tablesAt(table, VARIABLE)) {
    if (!hiding.secret(variable) || !Object.hasOwn(variable, "value")) continue
    const value = variable.value
    if (typeof value !== "string") return undefined
    if (value !== "" && !MARKS.has(value)) values.add(value)
  }
  return values
}

/**
 * `toml` with each secret variable's value replaced where the text writes it; the same string when
 * it holds none; HIDDEN_WHOLE where it cannot be read, or its values cannot be hidden in place.
 */
export const hideSecrets = (toml: string, hiding: Hiding = CAUTIOUS): string => {
  if (!mayHoldVariables(toml)) return toml
  const read = TomlRead.read(toml)
  if (read._tag === "Unread") return readablePart(toml, read, hiding)
  return hideRead(toml, read.table, hiding)
}

/** What follows the part of a text read whole, where the rest could not be: a comment, so that the part still reads. */
export const HIDDEN_REST = "\n# [redacted: the rest of this text could not be read as TOML, so it is hidden]\n"

/**
 * A text the parser cannot read (one cut short, by the answer's cap among them), shown up to the
 * last table's header before the place the parser stopped, where that part reads whole: a table
 * above it is whole there, and nothing below a header changes how a table above it reads. The rest
 * is hidden; where no such part reads, all of it.
 */
const readablePart = (toml: string, unread: TomlRead.Read & { _tag: "Unread" }, hiding: Hiding): string => {
  if (unread.line === undefined) return HIDDEN_WHOLE
  let end = -1
  let at = 0
  for (let line = 1; line < unread.line && at >= 0; line++) {
    if (/^[ \t]*\[/.test(toml.slice(at, at + 64))) end = at
    at = toml.indexOf("\n", at) + 1 || -1
  }
  if (end <= 0) return HIDDEN_WHOLE
  const part = toml.slice(0, end)
  const read = TomlRead.read(part)
  if (read._tag === "Unread") return HIDDEN_WHOLE
  const shown = hideRead(part, read.table, hiding)
  return shown === HIDDEN_WHOLE ? shown : `${shown}${HIDDEN_REST}`
}

/** A text read whole with each secret value replaced where it is written, or HIDDEN_WHOLE. */
const hideRead = (toml: string, table: TomlRead.Table, hiding: Hiding): string => {
  const values = secretValues(table, hiding)
  if (values === undefined) return HIDDEN_WHOLE
  if (values.size === 0) return toml
  const mark = (value: string) => (hiding.current === undefined || hiding.current.has(value) ? REDACTED : REDACTED_NEW)
  const out = replaceStrings(toml, values, mark)
  // Held to the parser: read again, every secret variable's value is a mark, or nothing is shown.
  const again = TomlRead.read(out)
  return again._tag === "Read" && secretValues(again.table, hiding)?.size === 0 ? out : HIDDEN_WHOLE
}

/**
 * Where an untrusted string is TOML that may hold variables, by the definition it is found under and
 * its path's keys: `TomlResponse`'s `toml`, the answer of both exports; a variable's `DiffData`'s
 * `current` and `proposed`, a plan's changes (a resource's or a user group's text holds no variable); `ResourceSyncInfo`'s `remote_contents[].contents`, a
 * sync's files. Its messages, a change's name and a file's errors are no TOML, and are left as they are.
 */
const TOML_TEXTS: Readonly<Record<string, readonly [(path: ReadonlyArray<string | number>) => boolean, Hiding]>> = {
  TomlResponse: [(path) => path.at(-1) === "toml", CAUTIOUS],
  DiffData: [
    (path) => path.includes("variable_updates") && (path.at(-1) === "current" || path.at(-1) === "proposed"),
    MARKED,
  ],
  ResourceSyncInfo: [(path) => path.at(-1) === "contents" && path.at(-3) === "remote_contents", MARKED],
}

/**
 * For Untrusted's masking: a TOML text's secrets hidden as the text says them, any other untrusted
 * text as it is. A sync's plan and files were read as a whole before (`hidePlans`).
 */
export const hidden = (text: string, definition: string, path: ReadonlyArray<string | number> = []): string => {
  const [holds, hiding] = Object.hasOwn(TOML_TEXTS, definition) ? (TOML_TEXTS[definition] ?? []) : []
  return holds?.(path) === true && hiding !== undefined ? hideSecrets(text, hiding) : text
}

/** Each variable's name as the service marks it, `secret` or `plain` (Names.ts); undefined where it could not be asked. */
export type AtService = ReadonlyMap<string, string> | undefined

/** The variables' tables of a text, or undefined where it cannot be read. */
const variablesIn = (text: unknown): ReadonlyArray<TomlRead.Table> | undefined => {
  if (typeof text !== "string") return []
  const read = TomlRead.read(text)
  return read._tag === "Read" ? TomlRead.tablesAt(read.table, VARIABLE) : undefined
}

/**
 * The names a sync's plan holds secret: those a text of a change says are, those the service holds
 * secret or does not say are plain (a change that updates or deletes one it holds), and every one a
 * change names where one of its texts cannot be read. A change that creates one takes its text's word.
 */
const planSecrets = (info: Readonly<Record<string, unknown>>, atService: AtService): ReadonlySet<string> => {
  const secret = new Set<string>()
  for (const update of list(info.variable_updates)) {
    const { type, data } = record(update)
    const texts = [record(data).current, record(data).proposed].map(variablesIn)
    const unread = texts.some((t) => t === undefined)
    for (const variable of texts.flat()) {
      const name = variable === undefined ? undefined : nameOf(variable)
      if (name === undefined) continue
      const held = type === "Create" ? atService?.get(name) === "secret" : atService?.get(name) !== "plain"
      if (unread || held || variable?.is_secret === true) secret.add(name)
    }
  }
  return secret
}

/**
 * A sync's file before (`now`, none for a new file) and after a write, as its question's diff shows
 * them: a variable's value hidden in both where either text says `is_secret = true`, where the
 * service holds it secret, and, where the service could not be asked (`atService` undefined), every
 * variable's. A value the file does not hold now is marked as new: the diff says it changes, not
 * from what or to what.
 */
export const hideFileSides = (
  now: string | undefined,
  after: string,
  atService: AtService,
): { readonly now: string | undefined; readonly after: string } => {
  const marked = new Set(
    [now, after].flatMap((text) =>
      (variablesIn(text) ?? []).flatMap((v) => (v.is_secret === true ? (nameOf(v) ?? []) : [])),
    ),
  )
  const hiding: Hiding = {
    secret: (v) => {
      const name = nameOf(v)
      return (
        v.is_secret === true ||
        name === undefined ||
        marked.has(name) ||
        atService === undefined ||
        atService.get(name) === "secret"
      )
    },
  }
  const held = new Set(
    (variablesIn(now) ?? []).flatMap((v) => (hiding.secret(v) && typeof v.value === "string" ? [v.value] : [])),
  )
  return {
    now: now === undefined ? undefined : hideSecrets(now, hiding),
    after: hideSecrets(after, { ...hiding, current: held }),
  }
}

/** The names a sync's plan creates: the service holds none of them. */
const planCreates = (info: Readonly<Record<string, unknown>>): ReadonlySet<string> =>
  new Set(
    list(info.variable_updates).flatMap((update) => {
      const { type, data } = record(update)
      const name = type === "Create" ? record(data).name : undefined
      return typeof name === "string" ? [name] : []
    }),
  )

/**
 * A sync's record with its secret variables hidden, as its plan and the service say them: in both
 * texts of a change (the new value marked as new), and in its files, where a variable is secret as
 * a change says, as the service holds it, or where the service has not said it is plain and the plan
 * does not create it.
 */
const hidePlan = (info: Readonly<Record<string, unknown>>, atService: AtService): Readonly<Record<string, unknown>> => {
  const secret = planSecrets(info, atService)
  const created = planCreates(info)
  const inPlan: Hiding = { secret: (v) => v.is_secret === true || secret.has(nameOf(v) ?? "") }
  const updates = list(info.variable_updates).map((update) => {
    const data = record(record(update).data)
    const current = variablesIn(data.current)
    const held = new Set(
      (current ?? []).flatMap((v) => (inPlan.secret(v) && typeof v.value === "string" ? [v.value] : [])),
    )
    const hide = (text: unknown, hiding: Hiding) => (typeof text === "string" ? hideSecrets(text, hiding) : text)
    const texts = {
      ...(data.current === undefined ? {} : { current: hide(data.current, inPlan) }),
      ...(data.proposed === undefined ? {} : { proposed: hide(data.proposed, { ...inPlan, current: held }) }),
    }
    return { ...record(update), data: { ...data, ...texts } }
  })
  const inFiles: Hiding = {
    secret: (v) => {
      const name = nameOf(v) ?? ""
      return inPlan.secret(v) || (atService?.get(name) !== "plain" && !created.has(name))
    },
  }
  const files = list(info.remote_contents).map((file) => {
    const contents = record(file).contents
    return typeof contents === "string" ? { ...record(file), contents: hideSecrets(contents, inFiles) } : file
  })
  return {
    ...info,
    ...(Array.isArray(info.variable_updates) ? { variable_updates: updates } : {}),
    ...(Array.isArray(info.remote_contents) ? { remote_contents: files } : {}),
  }
}

/** Whether a value is a sync's record whose plan or files may hold variables. */
const holdsVariables = (value: unknown): boolean => {
  const info = record(record(value).info)
  return (
    list(info.variable_updates).length > 0 ||
    list(info.remote_contents).some((file) => {
      const contents = record(file).contents
      return typeof contents === "string" && mayHoldVariables(contents)
    })
  )
}

const withPlan = (value: unknown, atService: AtService): unknown =>
  holdsVariables(value) ? { ...record(value), info: hidePlan(record(record(value).info), atService) } : value

/**
 * An answer with each sync's secret variables hidden, in its plan and files (a record, or a list of
 * them), as the service marks them (`atService`); any other answer as it is.
 */
export const hidePlans = (data: unknown, atService: AtService): unknown =>
  Array.isArray(data)
    ? data.some(holdsVariables)
      ? data.map((item) => withPlan(item, atService))
      : data
    : withPlan(data, atService)

/** The service's word on its variables, where an answer holds a sync's plan or files that may hold them (Names.ts). */
export const kindsFor = (data: unknown): ReadonlyArray<"variable"> =>
  (Array.isArray(data) ? data.some(holdsVariables) : holdsVariables(data)) ? ["variable"] : []
