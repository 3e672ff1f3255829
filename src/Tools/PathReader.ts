/**
 * A dotted path of a record, made once into the function that reads it: the
 * path is split when a table is compiled, never per record or per call.
 */
import { isObject } from "../Shared/JsonShape.js"

/** Reads a record's value at a path; undefined where it has none. */
export type Reader = (record: unknown) => unknown

const itself: Reader = (value) => value

/**
 * The reader of `names`, read through arrays as `fields` reads them
 * (`info.services.service`: the service of each service, items without one
 * left out). A field is read only where it is the object's own.
 */
export const compile = (names: ReadonlyArray<string>): Reader => {
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

/** The reader of a dotted path: `info.server_id`. */
export const of = (path: string): Reader => compile(path.split("."))
