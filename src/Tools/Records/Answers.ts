/**
 * The readers of the questions' answers that are not one field as it is (Questions.ts): where an
 * alerter sends, its credential masked; what each procedure stage runs, by name; an alert's
 * numbers; a deployment's environment's keys; where a stack's files are. Each reads only the paths
 * its question names, and none shows a credential: a URL keeps its scheme, host and first path
 * segment, the rest masked, as Slack's and Discord's webhooks carry their token in the path.
 */
import { isObject } from "../../Shared/JsonShape.js"
import { REDACTED } from "../../Shared/Secrets.js"
import type { NameKind, NameMaps } from "../Names/Names.js"
import { type Question, readOf } from "./Questions.js"

type Json = Readonly<Record<string, unknown>>

const at = (record: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), record)

const text = (value: unknown): string => (typeof value === "string" ? value : "")

/**
 * A URL with what may hold a credential masked: the user and password, every path segment after
 * the first, the query and the fragment. Not a URL: masked whole, unless empty.
 */
const maskUrl = (value: unknown): string | undefined => {
  const raw = text(value).trim()
  if (raw === "") return undefined
  if (!URL.canParse(raw)) return REDACTED
  const url = new URL(raw)
  const [first, ...rest] = url.pathname.split("/").filter((segment) => segment !== "")
  const kept = first === undefined ? "" : `/${first}`
  const masked = rest.length > 0 || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== ""
  // The host as the URL names it (a port kept), never the user or password before it.
  return `${url.protocol}//${url.host}${kept}${masked ? `/${REDACTED}` : ""}`
}

/** `KEY=value` lines, as the service reads an environment: the keys, never a value; comments and blank lines left out. */
const envKeys = (value: unknown): ReadonlyArray<string> =>
  text(value)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && line.includes("="))
    .map((line) => line.slice(0, line.indexOf("=")).trim())
    .filter((key) => key !== "")

/** The kind of names an execution's param holds (`{stack: "web"}`), by the param's key. */
const PARAM_KINDS: Readonly<Record<string, NameKind>> = {
  stack: "stack",
  deployment: "deployment",
  build: "build",
  repo: "repo",
  procedure: "procedure",
  action: "action",
  server: "server",
  sync: "sync",
  swarm: "swarm",
  alerter: "alerter",
}

/** An id as the service makes them. */
const ID = /^[0-9a-f]{24}$/

/** An execution's target: its first param that names a resource (by name, where `names` knows the id), else its pattern. */
const targetOf = (params: unknown, names: NameMaps): string | undefined => {
  if (!isObject(params)) return undefined
  for (const [key, kind] of Object.entries(PARAM_KINDS)) {
    const value = params[key]
    if (typeof value === "string" && value !== "") return names[kind]?.get(value) ?? value
  }
  return typeof params.pattern === "string" && params.pattern !== "" ? params.pattern : undefined
}

const executionsOf = (stage: Json): ReadonlyArray<unknown> => [
  ...(Array.isArray(stage.executions) ? stage.executions : []),
  ...(Array.isArray(stage.execution) ? stage.execution : []),
]

/** One execution as its type and target: `RunBuild api-image`; `(off)` after one that is disabled. */
const runOf = (enabled: unknown, names: NameMaps): string | undefined => {
  if (!isObject(enabled) || !isObject(enabled.execution)) return undefined
  const { type, params } = enabled.execution
  if (typeof type !== "string") return undefined
  const target = targetOf(params, names)
  return `${type}${target === undefined ? "" : ` ${target}`}${enabled.enabled === false ? " (off)" : ""}`
}

/** Each stage as `name: what it runs`, its executions by type and target: `build: RunBuild api-image`. */
const stageRuns = (stages: unknown, names: NameMaps): ReadonlyArray<string> =>
  (Array.isArray(stages) ? stages : []).flatMap((stage) => {
    if (!isObject(stage)) return []
    const runs = executionsOf(stage).flatMap((e) => runOf(e, names) ?? [])
    const off = stage.enabled === false ? " (off)" : ""
    return [`${text(stage.name)}${off}: ${runs.join(", ")}`]
  })

/** The kinds of names the stages' targets need read: those given by id. */
const stageKinds = (stages: unknown): ReadonlyArray<NameKind> => {
  const kinds = new Set<NameKind>()
  for (const stage of Array.isArray(stages) ? stages : []) {
    if (!isObject(stage)) continue
    for (const e of executionsOf(stage)) {
      const params = isObject(e) && isObject(e.execution) ? e.execution.params : undefined
      if (!isObject(params)) continue
      for (const [key, kind] of Object.entries(PARAM_KINDS)) {
        if (typeof params[key] === "string" && ID.test(params[key] as string)) kinds.add(kind)
      }
    }
  }
  return [...kinds]
}

/** What raises an alert: of its data, the numbers and the states it went from and to (the definitions' own words). */
const ALERT_VALUES = ["percentage", "used_gb", "total_gb", "from", "to"] as const

const alertValues = (data: unknown): Json | undefined => {
  if (!isObject(data)) return undefined
  const values = Object.fromEntries(
    ALERT_VALUES.flatMap((key) => {
      const value = data[key]
      // A state is one word of the definitions' enum; anything else is not shown.
      return typeof value === "number" || (typeof value === "string" && /^[a-z_]{1,20}$/.test(value))
        ? [[key, value] as const]
        : []
    }),
  )
  return Object.keys(values).length === 0 ? undefined : values
}

/** Where a stack's files are, from its config: on the server, in a repository, or written in the service (`ui`). */
const filesAt = (config: unknown): "server" | "repo" | "ui" | undefined => {
  if (!isObject(config)) return undefined
  if (config.files_on_host === true) return "server"
  if (text(config.repo) !== "" || text(config.linked_repo) !== "") return "repo"
  return text(config.file_contents) !== "" ? "ui" : undefined
}

/** The answer to `question` of `record` (with its list item, `listed`), or undefined where it holds none. */
const answerOf = (question: Question, record: Json, names: NameMaps, listed: Json | undefined): unknown => {
  const [path = ""] = question.paths
  switch (question.reads) {
    case "listed":
      return at(listed, path)
    case "url":
      return maskUrl(at(record, path))
    case "keys":
      return envKeys(at(record, path))
    case "runs":
      return stageRuns(at(record, "config.stages"), names)
    case "numbers":
      return alertValues(at(record, "data.data"))
    case "files_at":
      return filesAt(record.config)
    default:
      return undefined
  }
}

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)

/** The answers of `endpoint`'s questions that have a reader of their own, each by its label; the empty left out. */
export const answersOf = (
  endpoint: string,
  record: Json,
  names: NameMaps,
  listed: Json | undefined,
): ReadonlyArray<readonly [string, unknown]> =>
  readOf(endpoint).flatMap((question) => {
    const answer = answerOf(question, record, names, listed)
    return isEmpty(answer) ? [] : [[question.label, answer] as const]
  })

/** The kinds of names those answers show: a procedure's stages' targets given by id. */
export const kindsOf = (endpoint: string, record: Json): ReadonlyArray<NameKind> =>
  readOf(endpoint).some((question) => question.reads === "runs") ? stageKinds(at(record, "config.stages")) : []
