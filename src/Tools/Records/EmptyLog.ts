/**
 * An empty log says why, where one read can: a deployment's container (none, or exited and since
 * when, as docker's status says it), a stack's services' containers. As data, in the shape of a
 * read-back (ReadBackParts.ts): the read, and the line it makes; which log reads which is said by
 * the table of reads beside an answer (ReadsBeside.ts). Said as a first line
 * above the log, which stays as the service sent it.
 */
import { isObject } from "../../Shared/JsonShape.js"
import { type Json, named, type ReadBack } from "./ReadBackParts.js"

/** Whether a log (the service's `Log`) holds no line, out or err. */
export const isEmptyLog = (data: unknown): boolean =>
  isObject(data) && data.stdout === "" && data.stderr === "" && typeof data.stage === "string"

const STATUS = /^[A-Z][a-z]+( \(-?\d{1,4}\))?( [\w ]{1,40})?$/

/** A container in words: its state and docker's status, which says since when (`Exited (0) 3 days ago`). */
const containerWords = (container: unknown): string => {
  if (!isObject(container)) return "no container"
  const state = typeof container.state === "string" ? container.state : "unknown"
  // Docker's own words, kept only in their own shape: a status is never a line of anyone's text.
  const status = typeof container.status === "string" && STATUS.test(container.status) ? ` (${container.status})` : ""
  return `its container is ${state}${status}`
}

/** A deployment's log: its container. */
export const DEPLOYMENT: ReadBack = {
  read: (body) => {
    const deployment = named(body, "deployment")
    return deployment === undefined ? undefined : { endpoint: "read/GetDeploymentContainer", body: { deployment } }
  },
  kinds: () => [],
  said: (answer, body) => {
    const found = isObject(answer) ? answer : {}
    const why = isObject(found.container)
      ? containerWords(found.container)
      : `it has no container (state ${String(found.state ?? "unknown")})`
    return {
      line: `[svc-mcp: the log is empty: the deployment ${String(body.deployment ?? body.id ?? "")}: ${why}]`,
      value: { why },
    }
  },
}

/** A stack's log: its services' containers. */
export const STACK: ReadBack = {
  read: (body) => {
    const stack = named(body, "stack")
    return stack === undefined ? undefined : { endpoint: "read/ListStackServices", body: { stack } }
  },
  kinds: () => [],
  said: (answer, body) => {
    const asked = Array.isArray(body.services) ? body.services.map(String) : []
    const services = (Array.isArray(answer) ? answer : [])
      .filter((s): s is Json => isObject(s) && (asked.length === 0 || asked.includes(String(s.service))))
      .map(
        (s) =>
          `${String(s.service)}: ${isObject(s.container) ? containerWords(s.container).replace("its container is ", "") : "no container"}`,
      )
    const why = services.length === 0 ? "no service of it has a container" : services.join("; ")
    return {
      line: `[svc-mcp: the log is empty: the stack ${String(body.stack ?? body.id ?? "")}: ${why}]`,
      value: { why },
    }
  },
}
