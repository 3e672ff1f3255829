/**
 * The address a caller's requests name to the service in `X-Forwarded-For`, so
 * that the service counts each caller's failed authentications on its own: the
 * caller's TCP peer, or, when that peer is a trusted proxy (SVC_MCP_TRUSTED_PROXIES),
 * the client that the proxy reports. What an untrusted caller sends in its own
 * headers is never believed nor passed on: anyone could name a fresh address
 * on every attempt and so escape the service's limit.
 */
import * as Option from "effect/Option"
import { type Cidr, containsAny, normalize } from "../Shared/Cidr.js"

/** Request headers as Node gives them (lower-case names). */
export type Headers = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** Every entry of the X-Forwarded-For chain, left (the first client) to right (the nearest hop). */
const chain = (headers: Headers): ReadonlyArray<string> => {
  const value = headers["x-forwarded-for"]
  const all = value === undefined ? [] : typeof value === "string" ? [value] : value
  return all
    .flatMap((line) => line.split(","))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
}

/**
 * The caller's address. Behind trusted proxies the chain is read from the right:
 * each trusted hop is passed over, and the first untrusted entry is the client.
 * An entry that is no address ends the walk at the last hop known good, as does
 * a chain of trusted hops only (the leftmost then). A peer that is no address
 * (a Unix socket) is answered as is.
 */
export const callerAddress = (peer: string, headers: Headers, trusted: ReadonlyArray<Cidr>): string => {
  const self = Option.getOrElse(normalize(peer), () => peer)
  if (!containsAny(trusted, self)) return self
  let found = self
  const entries = chain(headers)
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = normalize(entries[i] ?? "")
    if (Option.isNone(entry)) return found
    found = entry.value
    if (!containsAny(trusted, found)) return found
  }
  return found
}
