/**
 * What opens the guard's window, and what the guard calls it. Data, beside
 * the fences' paths (Paths.ts) and the rules they come from (Fields.ts):
 *
 * - `QUIET`: the untrusted text that opens no window. Every untrusted value is
 *   fenced, but only text from outside the service and the user (command and
 *   container output, files, commit messages, labels, alert text, synced diffs)
 *   opens the window; the service's own bookkeeping lines do not.
 * - `NOUNS`: each untrusted field as a user would name it, so that the question
 *   and the refusal say "the logs of stack web (service worker)", "the output of
 *   deploy_stack web", "the pending changes of sync estate-sync".
 *
 * docs/untrusted-text.md states the rule; test/unit/Untrusted/Reading.test.ts holds that
 * every untrusted field has its words.
 */
import { wildcard } from "../Shared/Wildcard.js"
import { RULES } from "./Fields.js"
import type { Found } from "./Locate.js"

/** Untrusted text that opens no window: what the service writes of its own doing. */
export interface Quiet {
  /** The endpoints whose answers carry it, `*` any run: the changes made through the service. */
  readonly endpoints: ReadonlyArray<string>
  /** The definition it is found under. */
  readonly definition: string
  readonly why: string
}

export const QUIET: ReadonlyArray<Quiet> = [
  {
    endpoints: ["write/Rename*", "write/Update*", "write/Create*", "write/Copy*", "write/Delete*"],
    definition: "Log",
    why: "the log lines of the Update a change made through the service answers (a rename, an update, a create, a copy, a delete) are the service's own bookkeeping, e.g. \"Renamed Build from docs-image to docs-site-image\"; an execution's output is not, and opens the window",
  },
]

/** Each definition's fields in a user's words; `*` any other field of it. */
export const NOUNS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // An execution's logs are its output (`output` below).
  Log: { "*": "the logs" },
  StackInfo: {
    latest_message: "the commit messages",
    deployed_message: "the commit messages",
    "*": "the file contents",
  },
  BuildInfo: {
    latest_message: "the commit messages",
    built_message: "the commit messages",
    "*": "the file contents",
  },
  RepoInfo: { "*": "the commit messages" },
  RepoListItemInfo: { "*": "the commit messages" },
  ResourceSyncInfo: {
    last_sync_message: "the commit messages",
    pending_message: "the commit messages",
    remote_contents: "the file contents",
    remote_errors: "the file contents",
    "*": "the pending changes",
  },
  // What a sync's pending change would write.
  DiffData: { "*": "the pending changes" },
  ResourceSyncListItemInfo: { "*": "the commit messages" },
  Alert: { "*": "the alert text" },
  TomlResponse: { "*": "the exported TOML" },
  ContainerConfig: { "*": "the labels, environment and command" },
  ImageConfig: { "*": "the labels, environment and command" },
  TaskSpecContainerSpec: { "*": "the labels, environment and command" },
  Container: { "*": "the command" },
  ContainerListItem: { "*": "the labels" },
  SwarmTask: { "*": "the labels" },
  Network: { "*": "the labels" },
  Volume: { "*": "the labels" },
  Image: { "*": "the metadata" },
  ImageHistoryResponseItem: { "*": "the history" },
  HealthcheckResult: { "*": "the health check output" },
  TaskStatus: { "*": "the status messages" },
  Variable: { "*": "the description" },
  StackService: { "*": "the compose service names" },
  ...Object.fromEntries(
    RULES.filter((rule) => rule.definition.startsWith("Resource<")).map((rule) => [
      rule.definition,
      { "*": "the description" },
    ]),
  ),
}

/** An execution's selector, where it is not its endpoint's name in snake case. */
const SELECTORS: Readonly<Record<string, string>> = { RunStackService: "deploy_stack_service" }

/** The params that name what a call read, the subject first; the rest are said in parentheses. */
const NAMING = [
  "stack",
  "deployment",
  "build",
  "repo",
  "sync",
  "procedure",
  "action",
  "alerter",
  "builder",
  "container",
  "service",
  "swarm",
  "image",
  "network",
  "volume",
  "node",
  "task",
  "config",
  "secret",
  "server",
  "id",
  "name",
  "pattern",
]

/** Params that name several of a kind: `services: ["worker"]` is said "service worker". */
const SEVERAL: Readonly<Record<string, string>> = { services: "service" }

const fieldsOf = new Map(RULES.map((rule) => [rule.definition, new Set(rule.fields)]))

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text)

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase()

/** The untrusted field a value was found under: the first of its path's segments that the definition's rule names. */
const fieldOf = (at: Found): string | undefined => {
  const fields = fieldsOf.get(at.definition)
  return at.path.find((segment): segment is string => typeof segment === "string" && fields?.has(segment) === true)
}

/** What a value found is, in a user's words. */
const nounOf = (at: Found, execution: boolean): string => {
  if (at.definition === "Log" && execution) return "the output"
  const nouns = NOUNS[at.definition]
  const field = fieldOf(at)
  return (field === undefined ? undefined : nouns?.[field]) ?? nouns?.["*"] ?? "the untrusted text"
}

const quiet = QUIET.map((rule) => ({ ...rule, tests: rule.endpoints.map(wildcard) }))

/** Whether a value found in an answer of `endpoint` opens the window: not the service's own bookkeeping. */
const opens = (endpoint: string) => {
  const rules = quiet.filter((rule) => rule.tests.some((test) => test.test(endpoint)))
  return (at: Found) => !rules.some((rule) => rule.definition === at.definition)
}

/** The kind a record named by `id` or `name` is: the endpoint's noun, `GetUpdate` an update. */
const kindOf = (name: string) =>
  snake(name.replace(/^(Get|Inspect|List|Search|Run|Update|Create|Copy|Delete|Rename)/, "")).replace(/_/g, " ")

/**
 * What the call read, from its params: its subject, the rest in parentheses. `stack web (service
 * worker)`; an execution names its subject by value alone (`deploy_stack web`).
 */
const targetOf = (name: string, body: Readonly<Record<string, unknown>>, execution: boolean) => {
  const named = NAMING.flatMap((key) => {
    const value = body[key]
    return typeof value === "string" && value !== "" ? [[key, clip(value)] as const] : []
  })
  const several = Object.entries(SEVERAL).flatMap(([key, one]) => {
    const values = body[key]
    if (!Array.isArray(values)) return []
    const given = values.filter((v): v is string => typeof v === "string" && v !== "").map(clip)
    return given.length === 0 ? [] : [`${one}${given.length > 1 ? "s" : ""} ${given.slice(0, 3).join(", ")}`]
  })
  const [subject, ...rest] = named
  const words =
    subject === undefined
      ? ""
      : execution
        ? subject[1]
        : `${subject[0] === "id" || subject[0] === "name" ? kindOf(name) : subject[0]} ${subject[1]}`
  const more = [...rest.slice(0, 2).map(([key, value]) => `${key} ${value}`), ...several]
  return `${words}${more.length === 0 ? "" : `${words === "" ? "" : " "}(${more.join(", ")})`}`
}

/**
 * What was read, for the guard: "the logs of stack web (service worker)", "the output of
 * deploy_stack web"; undefined when nothing found opens the window (the service's own bookkeeping).
 */
export const readingOf = (
  found: ReadonlyArray<Found>,
  body: Readonly<Record<string, unknown>>,
  endpoint: string,
): string | undefined => {
  const slash = endpoint.indexOf("/")
  const group = endpoint.slice(0, slash)
  const name = endpoint.slice(slash + 1)
  const opening = found.filter(opens(endpoint))
  if (opening.length === 0) return undefined
  const execution = group === "execute"
  const what = [...new Set(opening.map((at) => nounOf(at, execution)))].join(" and ")
  const target = targetOf(name, body, execution)
  if (execution) return `${what} of ${SELECTORS[name] ?? snake(name)}${target === "" ? "" : ` ${target}`}`
  return target === "" ? `${what} (${endpoint})` : `${what} of ${target}`
}
