/**
 * The TOML of a sync's resource files, as the service writes it in an export
 * and reads it from a repository: `[[deployment]]` with `name`, `description`,
 * `tags`, then `[deployment.config]` with each field that differs from its
 * default, nested fields under dotted keys (`image.params.image = "..."`).
 * The reader takes what the writer writes and what people write by hand of
 * the same: tables and arrays of tables, dotted keys, strings, numbers,
 * booleans, arrays and inline tables, over many lines; it reads in one pass.
 */
import { isRecord } from "../World/Schema.js"

// ----- writing -----

const BARE = /^[A-Za-z0-9_-]+$/

const key = (k: string) => (BARE.test(k) ? k : JSON.stringify(k))

/** A value as TOML writes it; undefined for what it cannot hold (null). */
const tomlValue = (value: unknown): string | undefined => {
  // JSON's string escapes are TOML's basic string's (JSON.stringify writes no `\/`).
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined
  if (typeof value === "boolean") return String(value)
  if (Array.isArray(value)) {
    return `[${value.flatMap((v) => tomlValue(v) ?? []).join(", ")}]`
  }
  if (isRecord(value)) {
    const fields = Object.entries(value).flatMap(([k, v]) => {
      const shown = tomlValue(v)
      return shown === undefined ? [] : [`${key(k)} = ${shown}`]
    })
    return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`
  }
  return undefined
}

/** A record's fields as dotted paths to their leaves (values that are not tables, arrays included). */
export const leavesOf = (value: Readonly<Record<string, unknown>>, prefix = ""): Array<readonly [string, unknown]> =>
  Object.entries(value).flatMap(([k, v]) =>
    isRecord(v) && Object.keys(v).length > 0 ? leavesOf(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as const],
  )

/** `a.b = value` lines, each path's parts as TOML writes keys. */
export const lines = (fields: ReadonlyArray<readonly [string, unknown]>): Array<string> =>
  fields.flatMap(([path, value]) => {
    const shown = tomlValue(value)
    return shown === undefined ? [] : [`${path.split(".").map(key).join(".")} = ${shown}`]
  })

// ----- reading -----

/** A failure to read a sync's file, with where. */
export class TomlError extends Error {}

type Table = Record<string, unknown>

/** A table's own field, never one its prototype lends (`toString`). */
const own = (table: Table, k: string): unknown => (Object.hasOwn(table, k) ? table[k] : undefined)

/** Sets a table's own field, whatever its name (`__proto__` too). */
const put = (table: Table, k: string, value: unknown): void => {
  Object.defineProperty(table, k, { value, enumerable: true, writable: true, configurable: true })
}

/** Reads a TOML text into its tables. Throws TomlError where the text is not TOML it knows. */
export const parse = (text: string): Table => new Reader(text).document()

class Reader {
  private at = 0
  constructor(private readonly text: string) {}

  document(): Table {
    const root: Table = {}
    let table = root
    for (;;) {
      this.blank(true)
      if (this.at >= this.text.length) return root
      if (this.text[this.at] === "[") table = this.header(root)
      else {
        this.pair(table)
        this.lineEnd()
      }
    }
  }

  private fail(what: string): never {
    const line = this.text.slice(0, this.at).split("\n").length
    throw new TomlError(`TOML parse error at line ${line}: ${what}`)
  }

  /** Spaces and comments, and line ends too when `newlines`. */
  private blank(newlines: boolean): void {
    while (this.at < this.text.length) {
      const c = this.text[this.at]
      if (c === " " || c === "\t" || c === "\r" || (newlines && c === "\n")) this.at++
      else if (c === "#") while (this.at < this.text.length && this.text[this.at] !== "\n") this.at++
      else return
    }
  }

  private lineEnd(): void {
    this.blank(false)
    if (this.at < this.text.length && this.text[this.at] !== "\n") this.fail("expected the end of the line")
  }

  /** `[a.b]` or `[[a.b]]`: the table the lines below it fill. */
  private header(root: Table): Table {
    const many = this.text.startsWith("[[", this.at)
    this.at += many ? 2 : 1
    const path = this.keyPath()
    if (!this.text.startsWith(many ? "]]" : "]", this.at)) this.fail("an unclosed table header")
    this.at += many ? 2 : 1
    this.lineEnd()
    const last = path.pop() as string
    const parent = this.descend(root, path)
    if (!many) return this.child(parent, last)
    const list = own(parent, last) ?? []
    if (!Array.isArray(list)) this.fail(`${last} is not an array of tables`)
    const table: Table = {}
    list.push(table)
    put(parent, last, list)
    return table
  }

  /** The table at `path` below `from`, made where missing; an array's last table. */
  private descend(from: Table, path: ReadonlyArray<string>): Table {
    let table = from
    for (const part of path) {
      const next = own(table, part)
      table = Array.isArray(next) ? (next[next.length - 1] as Table) : this.child(table, part)
    }
    return table
  }

  private child(table: Table, part: string): Table {
    const next = own(table, part) ?? {}
    if (!isRecord(next)) this.fail(`${part} is already a value`)
    put(table, part, next)
    return next
  }

  private keyPath(): Array<string> {
    const parts: Array<string> = []
    for (;;) {
      this.blank(false)
      const c = this.text[this.at]
      if (c === '"' || c === "'") parts.push(this.string())
      else {
        const start = this.at
        while (this.at < this.text.length && /[A-Za-z0-9_-]/.test(this.text[this.at] as string)) this.at++
        if (this.at === start) this.fail("expected a key")
        parts.push(this.text.slice(start, this.at))
      }
      this.blank(false)
      if (this.text[this.at] !== ".") return parts
      this.at++
    }
  }

  private pair(table: Table): void {
    const path = this.keyPath()
    if (this.text[this.at] !== "=") this.fail("expected =")
    this.at++
    this.blank(false)
    const last = path.pop() as string
    const into = this.descend(table, path)
    if (Object.hasOwn(into, last)) this.fail(`${last} is defined twice`)
    put(into, last, this.value())
  }

  private value(): unknown {
    const c = this.text[this.at]
    if (c === '"' || c === "'") return this.string()
    if (c === "[") return this.array()
    if (c === "{") return this.inline()
    const start = this.at
    while (this.at < this.text.length && /[^\s,\]}#]/.test(this.text[this.at] as string)) this.at++
    const word = this.text.slice(start, this.at)
    if (word === "true" || word === "false") return word === "true"
    const n = Number(word.replaceAll("_", ""))
    if (word === "" || !Number.isFinite(n)) this.fail(`an unknown value ${JSON.stringify(word.slice(0, 40))}`)
    return n
  }

  private string(): string {
    const quote = this.text[this.at]
    const start = this.at
    this.at++
    while (this.at < this.text.length && this.text[this.at] !== quote && this.text[this.at] !== "\n") {
      this.at += quote === '"' && this.text[this.at] === "\\" ? 2 : 1
    }
    if (this.text[this.at] !== quote) this.fail("an unclosed string")
    this.at++
    const raw = this.text.slice(start, this.at)
    if (quote === "'") return raw.slice(1, -1)
    try {
      return JSON.parse(raw) as string
    } catch {
      return this.fail("a string with an escape TOML does not know")
    }
  }

  private array(): Array<unknown> {
    this.at++
    const items: Array<unknown> = []
    for (;;) {
      this.blank(true)
      if (this.text[this.at] === "]") {
        this.at++
        return items
      }
      if (this.at >= this.text.length) this.fail("an unclosed array")
      items.push(this.value())
      this.blank(true)
      if (this.at >= this.text.length) this.fail("an unclosed array")
      if (this.text[this.at] === ",") this.at++
      else if (this.text[this.at] !== "]") this.fail("expected , or ]")
    }
  }

  private inline(): Table {
    this.at++
    const table: Table = {}
    for (;;) {
      this.blank(false)
      if (this.text[this.at] === "}") {
        this.at++
        return table
      }
      if (this.at >= this.text.length || this.text[this.at] === "\n") this.fail("an unclosed inline table")
      this.pair(table)
      this.blank(false)
      if (this.text[this.at] === ",") this.at++
      else if (this.text[this.at] !== "}") this.fail("expected , or }")
    }
  }
}
