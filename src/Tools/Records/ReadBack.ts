/**
 * A change the service answers with nothing (`{}`) says what now holds, read back with one read:
 * a resource's tags and description after its meta is set, the alert closed (its kind and its
 * target), a stack's deployed and repository commits after its cache is refreshed. By endpoint,
 * as data: the read, and what of its answer is said. The ids shown are named (Names.ts).
 */
import { isObject } from "../../Shared/JsonShape.js"
import { KIND_OF_TYPE, type NameKind, type NameMaps } from "../Names/Names.js"

type Json = Readonly<Record<string, unknown>>

export interface ReadBack {
  /** The read that says what holds, from the change's params; undefined where they do not name it. */
  readonly read: (body: Json) => { readonly endpoint: string; readonly body: Json } | undefined
  /** The kinds of names what is said shows. */
  readonly kinds: (answer: Json) => ReadonlyArray<NameKind>
  /** What holds, as a first line and a value. */
  readonly said: (answer: Json, body: Json, names: NameMaps) => { readonly line: string; readonly value: Json }
}

/** The read of one resource by its type (a ResourceTarget's), and the key its params name it by. */
const GETS: Readonly<Record<string, readonly [endpoint: string, key: string]>> = {
  Stack: ["GetStack", "stack"],
  Deployment: ["GetDeployment", "deployment"],
  Server: ["GetServer", "server"],
  Build: ["GetBuild", "build"],
  Repo: ["GetRepo", "repo"],
  Procedure: ["GetProcedure", "procedure"],
  Action: ["GetAction", "action"],
  Alerter: ["GetAlerter", "alerter"],
  Builder: ["GetBuilder", "builder"],
  ResourceSync: ["GetResourceSync", "sync"],
  Swarm: ["GetSwarm", "swarm"],
}

const nameOf = (names: NameMaps, kind: NameKind | undefined, id: unknown): unknown =>
  typeof id === "string" && kind !== undefined ? (names[kind]?.get(id) ?? id) : id

/** A ResourceTarget in words: `Server prod-02`, `System`. */
const targetWords = (target: unknown, names: NameMaps): string => {
  if (!isObject(target) || typeof target.type !== "string") return "unknown"
  if (typeof target.id !== "string" || target.id === "") return target.type
  return `${target.type} ${String(nameOf(names, KIND_OF_TYPE[target.type], target.id))}`
}

const RESOURCE_META: ReadBack = {
  read: (body) => {
    const target = isObject(body.target) ? body.target : undefined
    const get = typeof target?.type === "string" ? GETS[target.type] : undefined
    return get === undefined || typeof target?.id !== "string"
      ? undefined
      : { endpoint: `read/${get[0]}`, body: { [get[1]]: target.id } }
  },
  kinds: (answer) => (Array.isArray(answer.tags) && answer.tags.length > 0 ? ["tag"] : []),
  said: (answer, body, names) => {
    const type = isObject(body.target) ? String(body.target.type) : "resource"
    const tags = Array.isArray(answer.tags) ? answer.tags.map((id) => nameOf(names, "tag", id)) : []
    return {
      line: `[svc-mcp: the meta of the ${type.toLowerCase()} ${String(answer.name ?? "")} is now as follows, read back]`,
      value: { tags, description: answer.description ?? "", template: answer.template === true },
    }
  },
}

const CLOSE_ALERT: ReadBack = {
  read: (body) => (typeof body.id === "string" ? { endpoint: "read/GetAlert", body: { id: body.id } } : undefined),
  kinds: (answer) => {
    const type = isObject(answer.target) ? answer.target.type : undefined
    const kind = typeof type === "string" ? KIND_OF_TYPE[type] : undefined
    return kind === undefined ? [] : [kind]
  },
  said: (answer, body, names) => ({
    line: `[svc-mcp: the alert ${String(body.id)} is ${answer.resolved === true ? "closed" : "still open"}, read back]`,
    value: {
      alert: body.id,
      resolved: answer.resolved === true,
      // The variant's tag: the service's own word, as the alerts' rows show it.
      what: isObject(answer.data) && typeof answer.data.type === "string" ? answer.data.type : null,
      target: targetWords(answer.target, names),
      level: answer.level ?? null,
    },
  }),
}

const REFRESH_STACK: ReadBack = {
  read: (body) =>
    typeof body.stack === "string" ? { endpoint: "read/GetStack", body: { stack: body.stack } } : undefined,
  kinds: () => [],
  said: (answer) => {
    const info = isObject(answer.info) ? answer.info : {}
    const deployed = typeof info.deployed_hash === "string" ? info.deployed_hash : null
    const latest = typeof info.latest_hash === "string" ? info.latest_hash : null
    const differs = deployed !== null && latest !== null && deployed !== latest
    return {
      line: `[svc-mcp: the cache of the stack ${String(answer.name ?? "")} is refreshed; its commits now, read back${differs ? ": the deployed commit is not the repository's" : ""}]`,
      value: { deployed_commit: deployed, repository_commit: latest, differs },
    }
  },
}

/** By endpoint: the changes the service answers with nothing. */
export const READ_BACKS: Readonly<Record<string, ReadBack>> = {
  "write/UpdateResourceMeta": RESOURCE_META,
  "write/CloseAlert": CLOSE_ALERT,
  "write/RefreshStackCache": REFRESH_STACK,
}

/** Whether `data` is the service's answer of nothing. */
export const isNothing = (data: unknown): boolean => data === null || (isObject(data) && Object.keys(data).length === 0)
