/**
 * A dotted path of a record, made once into the function that reads it: the
 * path is split when a table is compiled, never per record or per call.
 */
import { isObject } from "../../Shared/JsonShape.js"

/** Reads a record's value at a path; undefined where it has none. */
export type Reader = (record: unknown) => unknown

const itself: Reader = (value) => value

/**
 * The reader of `names`, read through arrays as `fields` reads them
 * (`info.services.service`: the service of each service, items without one
 * left out). A field is read only where it is the object's own.
 *
 * Its first use writes it as code of its own (`straight`): a reader made of closures shares
 * their code with every other path's, so each field it reads is looked up as any path's
 * might be; written out, each reads its own fields as the records' shape has them.
 */
export const compile = (names: ReadonlyArray<string>): Reader => {
  let read: Reader | undefined
  return (record) => {
    read ??= straight(names)
    return read(record)
  }
}

/** The closures' reader: one step per segment, each reading through arrays. */
const stepwise = (names: ReadonlyArray<string>): Reader => {
  let read = itself
  for (let at = names.length - 1; at >= 0; at--) read = step(names[at] as string, read)
  return read
}

/** One segment: `name` of an object, then `next`; through an array, of each item. */
const step = (name: string, next: Reader): Reader => {
  const read: Reader = (value) => {
    if (Array.isArray(value)) {
      const out: Array<unknown> = []
      for (const item of value) {
        const found = read(item)
        if (found !== undefined) out.push(found)
      }
      return out
    }
    return isObject(value) && Object.hasOwn(value, name) ? next(value[name]) : undefined
  }
  return read
}

/** A name written as a string literal as it is: the tables' names all are (anything else is read stepwise). */
const PLAIN = /^[\w$@.:/ -]*$/

/**
 * The reader of `names` as straight code: each segment an object's own field, read under its
 * name (the tables' names, quoted); an array met on the way is read by the closures from that
 * segment on, as `step` reads it.
 */
const straight = (names: ReadonlyArray<string>): Reader => {
  if (!names.every((name) => PLAIN.test(name))) return stepwise(names)
  const lines = names.map(
    (name, at) =>
      `if (Array.isArray(v)) return from[${at}](v); if (typeof v !== "object" || v === null) return undefined; ` +
      `const v${at} = v["${name}"]; if (v${at} === undefined || !Object.hasOwn(v, "${name}")) return undefined; v = v${at};`,
  )
  const from = names.map((_, at) => stepwise(names.slice(at)))
  try {
    return new Function("from", `return (v) => { ${lines.join(" ")} return v; }`)(from) as Reader
  } catch {
    // A runtime that makes no code from strings (node --disallow-code-generation-from-strings).
    return stepwise(names)
  }
}

/** The reader of a dotted path: `info.server_id`. */
export const of = (path: string): Reader => compile(path.split("."))
