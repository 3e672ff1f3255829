/**
 * Which client a request comes from, as the service's auth middleware decides
 * it: the first entry of `X-Forwarded-For`, else `X-Real-IP`, else the TCP
 * peer. As newer service versions do, the headers are believed only from a
 * private or loopback peer, where a server beside the service runs; anyone
 * else could name a fresh address on every attempt.
 */
import type * as Http from "node:http"
import * as Net from "node:net"

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.2`) as its IPv4 address. */
const unmapped = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return mapped?.[1] ?? address
}

const v4Octets = (address: string): ReadonlyArray<number> => address.split(".").map(Number)

/** Loopback, RFC 1918, IPv6 loopback and unique-local (fc00::/7) addresses. */
export const isPrivateOrLoopback = (raw: string): boolean => {
  const address = unmapped(raw.trim())
  if (Net.isIPv4(address)) {
    const [a = 0, b = 0] = v4Octets(address)
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)
  }
  if (Net.isIPv6(address)) {
    const lower = address.toLowerCase()
    return lower === "::1" || /^f[cd][0-9a-f]{0,2}:/.test(lower)
  }
  return false
}

/** What of a request says where it is from: its headers and its peer. */
type Request = Pick<Http.IncomingMessage, "headers"> & {
  readonly socket: { readonly remoteAddress?: string | undefined }
}

const header = (req: Request, name: string): string | undefined => {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The first header address that parses as an IP, trimmed. */
const named = (value: string | undefined): string | undefined => {
  const first = value?.split(",")[0]?.trim()
  return first !== undefined && Net.isIP(unmapped(first)) !== 0 ? unmapped(first) : undefined
}

/**
 * The key the rate limiter counts a request's failures under. The service counts
 * an IPv6 client by its /64 prefix, which one client usually controls whole.
 */
export const clientAddress = (req: Request): string => {
  const peer = unmapped(req.socket.remoteAddress ?? "")
  const address = isPrivateOrLoopback(peer)
    ? (named(header(req, "x-forwarded-for")) ?? named(header(req, "x-real-ip")) ?? peer)
    : peer
  return Net.isIPv6(address) ? prefix64(address) : address
}

/** The first four groups of an IPv6 address, written out in full. */
const prefix64 = (address: string): string => {
  const [head = "", tail] = address.toLowerCase().split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
  return `${groups
    .slice(0, 4)
    .map((g) => g.padStart(4, "0"))
    .join(":")}::/64`
}
