/**
 * A change the service answers with nothing (`{}`) says what now holds, read back with one read:
 * a resource's tags and description after its meta is set, the alert closed (its kind and its
 * target), the commits of a stack, build or repo after its cache is refreshed, the terminals left,
 * a server's containers; and the changes to access (ReadBackAccess.ts). Each as data: the read,
 * and what of its answer is said; which endpoint is read back by which is said by the table of
 * reads beside an answer (ReadsBeside.ts). The ids shown are named (Names.ts). A change that answers
 * with nothing and is not read back says why in NOT_READ_BACK: a test holds every such write of the
 * definitions that has a tool to one of the two.
 */
import { readOf } from "../../Kinds/Kinds.js"
import { isObject } from "../../Shared/JsonShape.js"
import { commits, type Json, kindOfTarget, named, nameOf, type ReadBack, targetWords } from "./ReadBackParts.js"

export type { ReadBack } from "./ReadBackParts.js"

const record = (answer: unknown): Json => (isObject(answer) ? answer : {})

export const RESOURCE_META: ReadBack = {
  read: (body) => {
    const target = isObject(body.target) ? body.target : undefined
    if (typeof target?.type !== "string" || typeof target.id !== "string") return undefined
    const get = readOf(target.type, target.id)
    return get === undefined ? undefined : { endpoint: `read/${get.endpoint}`, body: get.body }
  },
  kinds: (answer) => {
    const { tags } = record(answer)
    return Array.isArray(tags) && tags.length > 0 ? ["tag"] : []
  },
  said: (json, body, names) => {
    const answer = record(json)
    const type = isObject(body.target) ? String(body.target.type) : "resource"
    const tags = Array.isArray(answer.tags) ? answer.tags.map((id) => nameOf(names, "tag", id)) : []
    return {
      line: `[svc-mcp: the meta of the ${type.toLowerCase()} ${String(answer.name ?? "")} now, read back]`,
      value: { tags, description: answer.description ?? "", template: answer.template === true },
    }
  },
}

export const CLOSE_ALERT: ReadBack = {
  read: (body) => (typeof body.id === "string" ? { endpoint: "read/GetAlert", body: { id: body.id } } : undefined),
  kinds: (answer) => kindOfTarget(record(answer).target),
  said: (json, body, names) => {
    const answer = record(json)
    return {
      line: `[svc-mcp: the alert ${String(body.id)} is ${answer.resolved === true ? "closed" : "still open"}, read back]`,
      value: {
        alert: body.id,
        resolved: answer.resolved === true,
        // The variant's tag: the service's own word, as the alerts' rows show it.
        what: isObject(answer.data) && typeof answer.data.type === "string" ? answer.data.type : null,
        target: targetWords(answer.target, names),
        level: answer.level ?? null,
      },
    }
  },
}

/** Why a stack's deployed commit is not known: never deployed, or deployed from files without a commit. */
const deployedUnknown = (info: Json): string =>
  [info.deployed_contents, info.deployed_services].some((v) => Array.isArray(v) && v.length > 0) ||
  (typeof info.deployed_config === "string" && info.deployed_config !== "")
    ? "deployed from files without a commit"
    : "never deployed"

/** Why a stack's repository commit is not known: no repository, or the repository not read. */
const repositoryUnknown = (answer: Json): string => {
  const config = record(answer.config)
  if (typeof config.repo !== "string" || config.repo === "") return "no repository: its files are not in git"
  const errors = record(answer.info).remote_errors
  const first = Array.isArray(errors) && isObject(errors[0]) ? errors[0].contents : undefined
  return typeof first === "string" && first !== "" ? `not read: ${first.slice(0, 200)}` : "not read"
}

export const REFRESH_STACK: ReadBack = {
  read: (body) => {
    const stack = named(body, "stack")
    return stack === undefined ? undefined : { endpoint: "read/GetStack", body: { stack } }
  },
  kinds: () => [],
  said: (json) => {
    const answer = record(json)
    const { ran, latest, differs } = commits(answer, "deployed_hash")
    const name = String(answer.name ?? "")
    if (ran !== null && latest !== null)
      return {
        line: `[svc-mcp: the cache of the stack ${name} is refreshed; its commits now, read back${differs ? ": the deployed commit is not the repository's" : ""}]`,
        value: { deployed_commit: ran, repository_commit: latest, differs },
      }
    // A commit not known is said so, and whether they differ is not known: never "in sync". The
    // commits and why one is not known are the value's, not repeated in the line.
    const deployed = ran ?? deployedUnknown(record(answer.info))
    const repository = latest ?? repositoryUnknown(answer)
    return {
      line: `[svc-mcp: the cache of the stack ${name} is refreshed; its commits now, not all known, read back]`,
      value: { deployed_commit: deployed, repository_commit: repository, differs: "unknown" },
    }
  },
}

/** A build's or repo's commits after its cache is refreshed: the one last built, and the repository's. */
const refreshed = (kind: "build" | "repo", get: string): ReadBack => ({
  read: (body) => {
    const id = named(body, kind)
    return id === undefined ? undefined : { endpoint: `read/${get}`, body: { [kind]: id } }
  },
  kinds: () => [],
  said: (json) => {
    const answer = record(json)
    const { ran, latest, differs } = commits(answer, "built_hash")
    const known = ran !== null && latest !== null
    return {
      line: `[svc-mcp: the cache of the ${kind} ${String(answer.name ?? "")} is refreshed; its commits now, read back${differs ? ": the last built commit is not the repository's" : ""}]`,
      value: {
        built_commit: ran ?? "never built",
        repository_commit: latest ?? "not read",
        differs: known ? differs : "unknown",
      },
    }
  },
})

/** The terminals left where some were deleted: on the target, on the server, or everywhere. */
const terminalsLeft = (read: (body: Json) => Json | undefined, where: (body: Json) => string): ReadBack => ({
  read: (body) => {
    const target = read(body)
    return target === undefined ? undefined : { endpoint: "read/ListTerminals", body: target }
  },
  kinds: () => [],
  said: (answer, body) => {
    const left = Array.isArray(answer) ? answer.map((t) => (isObject(t) ? t.name : t)) : []
    return {
      line: `[svc-mcp: ${left.length} terminal${left.length === 1 ? "" : "s"} left ${where(body)}, read back]`,
      value: { terminals: left },
    }
  },
})

const server = (body: Json) => (typeof body.server === "string" ? body.server : undefined)

export const REFRESH_CONTAINERS: ReadBack = {
  read: (body) => {
    const on = server(body)
    return on === undefined ? undefined : { endpoint: "read/ListContainers", body: { server: on } }
  },
  kinds: () => [],
  said: (answer, body) => {
    const states: Record<string, number> = {}
    for (const c of Array.isArray(answer) ? answer : []) {
      const state = isObject(c) && typeof c.state === "string" ? c.state : "unknown"
      states[state] = (states[state] ?? 0) + 1
    }
    const count = Object.values(states).reduce((a, b) => a + b, 0)
    return {
      line: `[svc-mcp: the containers of the server ${String(body.server)} are refreshed: ${count} now, read back]`,
      value: { containers: count, by_state: states },
    }
  },
}

export const REFRESH_BUILD = refreshed("build", "GetBuild")
export const REFRESH_REPO = refreshed("repo", "GetRepo")

export const DELETE_TERMINAL = terminalsLeft(
  (body) => (isObject(body.target) ? { target: body.target } : undefined),
  (body) => `on ${targetWords(body.target, {})}`,
)

export const DELETE_ALL_TERMINALS = terminalsLeft(
  (body) => (server(body) === undefined ? undefined : { target: { type: "Server", params: { server: body.server } } }),
  (body) => `on the server ${String(body.server)}`,
)

export const BATCH_DELETE_ALL_TERMINALS = terminalsLeft(
  () => ({}),
  () => "on all servers",
)

/**
 * The changes the service answers with nothing that are not read back, and why: nothing a read
 * offers says what they changed, or what they did is the Update an execution answers.
 */
export const NOT_READ_BACK: Readonly<Record<string, string>> = {
  "write/DeleteApiKeyForServiceUser": "the key alone names no user whose keys a read would list; the key named is gone",
  "write/PushRecentlyViewed": "the caller's own list of recently viewed resources, a mark of the service's web UI",
  "write/SetLastSeenUpdate": "the caller's own mark of the last update seen, a mark of the service's web UI",
  "execute/RunServerRunCommand": "what a command did is its output, which no read offers afterwards",
  "execute/RunServerScripts": "what scripts did is their output, which no read offers afterwards",
  "execute/RunServerCopy": "an execution: what it did is the Update it answers (service-notes.md, Executions)",
  "execute/RunServerMove": "an execution: what it did is the Update it answers (service-notes.md, Executions)",
}

/** Whether `data` is the service's answer of nothing. */
export const isNothing = (data: unknown): boolean => data === null || (isObject(data) && Object.keys(data).length === 0)
