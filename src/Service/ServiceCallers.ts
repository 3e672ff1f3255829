/**
 * Per-request credentials among several services (SVC_SERVICES with
 * SVC_MCP_CREDENTIALS=per-request): each service's key comes in its own header
 * pair (X-Svc-Prod-Api-Key, X-Svc-Prod-Api-Secret). A request's pairs are kept
 * by service name, and a call to one service runs as that service's caller
 * alone, or as none: nothing of one service's credentials can reach another.
 */
import type { IncomingHttpHeaders } from "node:http"
import * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import { callerHeader } from "../Settings/Naming.js"
import type * as CallerCredentials from "./CallerCredentials.js"

/** The services' names when several are configured (SVC_SERVICES); none, the default, for one unnamed service. */
export class Named extends Context.Reference<Named>()("svc-mcp/ServiceCallers/Named", {
  defaultValue: (): ReadonlyArray<string> => [],
}) {}

export type Callers = ReadonlyMap<string, CallerCredentials.Caller>

/** The header of service `name`'s key or secret, as written: `X-Svc-Prod-Api-Key`. */
const header = callerHeader

const single = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined

/** The callers an HTTP request names, one per service it sends a pair for, or on the left why it names none (for a 401). */
export const fromHeaders = (
  names: ReadonlyArray<string>,
  headers: IncomingHttpHeaders,
): Either.Either<Callers, string> => {
  const callers = new Map<string, CallerCredentials.Caller>()
  for (const name of names) {
    const key = single(headers[header(name, "Key").toLowerCase()])
    const secret = single(headers[header(name, "Secret").toLowerCase()])
    if (key === undefined && secret === undefined) continue
    if (key === undefined || secret === undefined) {
      const missing = header(name, key === undefined ? "Key" : "Secret")
      return Either.left(`Unauthorized: ${missing} is missing; send each service's API key and secret together`)
    }
    callers.set(name, { key, secret: Redacted.make(secret) })
  }
  if (callers.size === 0) {
    return Either.left(
      `Unauthorized: this server runs with SVC_MCP_CREDENTIALS=per-request; send your own API key and secret for each service you call, e.g. ${header(names[0] ?? "", "Key")} and ${header(names[0] ?? "", "Secret")}`,
    )
  }
  return Either.right(callers)
}
