/**
 * IP addresses and CIDR ranges, IPv4 and IPv6 alike, matched by node's
 * `net.BlockList`, which holds an IPv4 address and its IPv4-mapped IPv6 form
 * (`::ffff:a.b.c.d`) for one: `127.0.0.0/8` holds `::ffff:127.0.0.2` as a peer
 * socket may report it, and `::ffff:127.0.0.0/104` holds `127.9.9.9`.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Net = process.getBuiltinModule("node:net")

type Family = "ipv4" | "ipv6"

export interface Cidr {
  /** As written in the setting. */
  readonly text: string
  /** The one range. */
  readonly range: InstanceType<typeof Net.BlockList>
}

/** The address without its zone (`%eth0`), and its family; none for text that is not an IP address. */
const read = (raw: string): Option.Option<{ readonly address: string; readonly family: Family }> => {
  const address = raw.trim().replace(/%.*$/, "")
  if (Net.isIPv4(address)) return Option.some({ address, family: "ipv4" })
  if (Net.isIPv6(address)) return Option.some({ address, family: "ipv6" })
  return Option.none()
}

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/
// libuv writes an address whose first six groups are zero with a dotted tail (the old IPv4-compatible form).
const COMPATIBLE = /^::(\d+)\.(\d+)\.(\d+)\.(\d+)$/

const groupsOf = (formatted: string): string => {
  const compatible = COMPATIBLE.exec(formatted)
  if (compatible === null) return formatted
  const [a, b, c, d] = compatible.slice(1).map(Number) as [number, number, number, number]
  return `::${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
}

/** An address as text in its usual form (IPv4 dotted, an IPv4-mapped address too; IPv6 compressed), or none when it is not one. */
export const normalize = (raw: string): Option.Option<string> =>
  Option.map(read(raw), ({ address, family }) => {
    // A dotted quad node accepts is already in its usual form.
    if (family === "ipv4") return address
    const formatted = new Net.SocketAddress({ address, family }).address
    return MAPPED.exec(formatted)?.[1] ?? groupsOf(formatted)
  })

/** `a.b.c.d/n`, `x::y/n`, or a bare address (the whole address); the problem as words otherwise. */
export const parse = (raw: string): Either.Either<Cidr, string> => {
  const text = raw.trim()
  const [written = "", length, ...extra] = text.split("/")
  const address = read(written)
  if (Option.isNone(address) || extra.length > 0)
    return Either.left(`${JSON.stringify(text)} is not an address or CIDR`)
  const { family } = address.value
  const max = family === "ipv4" ? 32 : 128
  if (length !== undefined && !/^\d{1,3}$/.test(length)) {
    return Either.left(`${JSON.stringify(text)} has no prefix length after "/"`)
  }
  const prefix = length === undefined ? max : Number(length)
  if (prefix > max) return Either.left(`${JSON.stringify(text)} has a prefix longer than ${max} bits`)
  const range = new Net.BlockList()
  range.addSubnet(address.value.address, prefix, family)
  return Either.right({ text, range })
}

/** Whether the range holds the address (any form, IPv4-mapped included); false for text that is no address. */
export const contains = (cidr: Cidr, address: string): boolean =>
  Option.match(read(address), {
    onNone: () => false,
    onSome: (found) => cidr.range.check(found.address, found.family),
  })

export const containsAny = (cidrs: ReadonlyArray<Cidr>, address: string): boolean =>
  cidrs.some((cidr) => contains(cidr, address))
