/** A pattern of `*` (any run of characters) as a test of a whole name: `svc_*`, `prune_*`. */
export const wildcard = (pattern: string): RegExp => new RegExp(`^${pattern.replace(/\*/g, ".*")}$`)
