/**
 * The `target` of an audit line: the resource a call's params name, as an
 * auditor looks for it (`web`, `Deployment:docs`), else whom or what it acts on.
 */
/** Fields of params that name the resource a call acts on, most telling first. */
const TARGET_KEYS = [
  "id",
  "name",
  "stack",
  "deployment",
  "server",
  "build",
  "repo",
  "procedure",
  "action",
  "sync",
  "swarm",
  "builder",
  "alerter",
  "container",
  "service",
  "tag",
  "pattern",
  // SVC_REACH=all: a group's members, a user, a key (its public part: the key id, never the secret).
  "user_group",
  "user",
  "user_id",
  "key",
  "public_key",
]

export const targetOf = (body: Readonly<Record<string, unknown>>): string | undefined => {
  for (const key of TARGET_KEYS) {
    const value = body[key]
    if (typeof value === "string" && value !== "") return value
  }
  // A resource's meta names it as `target`, a permission as `resource_target`: `Stack:web`.
  const target = body.target ?? body.resource_target
  if (typeof target === "object" && target !== null) {
    const { type, id } = target as { type?: unknown; id?: unknown }
    if (typeof id === "string") return typeof type === "string" ? `${type}:${id}` : id
  }
  return undefined
}
