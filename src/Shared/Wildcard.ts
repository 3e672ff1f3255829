/** A pattern of `*` (any run of characters) as a test of a whole name: `svc_*`, `prune_*`. */
export const wildcard = (pattern: string): RegExp => new RegExp(`^${pattern.replace(/\*/g, ".*")}$`)

/** A name pattern as a person reads it: `*` any run of characters, every other character itself. */
export const glob = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*+/g, ".*")}$`)
