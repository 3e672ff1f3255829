/**
 * IP addresses and CIDR ranges, IPv4 and IPv6 alike: every address is held as
 * 16 bytes, IPv4 as its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`), so that
 * `127.0.0.0/8` holds `::ffff:127.0.0.2` as a peer socket may report it.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"

// The built-in as a CommonJS object: an ES import of it evaluates every lazy export
// (node:fs's `promises` alone loads readline), which a start pays for.
const Net = process.getBuiltinModule("node:net")

export interface Cidr {
  /** As written in the setting. */
  readonly text: string
  readonly network: Uint8Array
  /** Leading bits that must match, out of 128. */
  readonly bits: number
}

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]

const v4Bytes = (text: string): Array<number> => text.split(".").map(Number)

const v6Bytes = (text: string): Array<number> => {
  let body = text
  const tail: Array<number> = []
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(body)
  if (v4 !== null) {
    tail.push(...v4Bytes(v4[1] ?? ""))
    body = `${body.slice(0, v4.index)}0:0`
  }
  const [head = "", rest] = body.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = rest === undefined || rest === "" ? [] : rest.split(":")
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
  const bytes = groups.flatMap((g) => {
    const n = Number.parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
  if (tail.length === 4) bytes.splice(12, 4, ...tail)
  return bytes
}

/** An address's 16 bytes; none for text that is not an IP address. A zone (`%eth0`) is dropped. */
export const addressBytes = (raw: string): Option.Option<Uint8Array> => {
  const text = raw.trim().replace(/%.*$/, "")
  if (Net.isIPv4(text)) return Option.some(Uint8Array.from([...MAPPED_PREFIX, ...v4Bytes(text)]))
  if (Net.isIPv6(text)) return Option.some(Uint8Array.from(v6Bytes(text)))
  return Option.none()
}

const isMapped = (bytes: Uint8Array) => MAPPED_PREFIX.every((b, i) => bytes[i] === b)

/** The address in its usual form: IPv4 dotted (an IPv4-mapped address too), IPv6 compressed. */
export const format = (bytes: Uint8Array): string => {
  if (isMapped(bytes)) return Array.from(bytes.slice(12)).join(".")
  const groups = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16),
  )
  // The longest run of two or more zero groups becomes "::".
  let best = { at: -1, length: 0 }
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && groups[j] === "0") j++
    if (j - i > best.length && j - i >= 2) best = { at: i, length: j - i }
    i = j === i ? i + 1 : j
  }
  if (best.at < 0) return groups.join(":")
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.length).join(":")}`
}

/** An address as text in its usual form, or none when it is not one. */
export const normalize = (raw: string): Option.Option<string> => Option.map(addressBytes(raw), format)

/** `a.b.c.d/n`, `x::y/n`, or a bare address (the whole address); the problem as words otherwise. */
export const parse = (raw: string): Either.Either<Cidr, string> => {
  const text = raw.trim()
  const [address = "", length, ...extra] = text.split("/")
  const bytes = addressBytes(address)
  if (Option.isNone(bytes) || extra.length > 0) return Either.left(`${JSON.stringify(text)} is not an address or CIDR`)
  const v4 = Net.isIPv4(address.trim())
  const max = v4 ? 32 : 128
  if (length !== undefined && !/^\d{1,3}$/.test(length)) {
    return Either.left(`${JSON.stringify(text)} has no prefix length after "/"`)
  }
  const prefix = length === undefined ? max : Number(length)
  if (prefix > max) return Either.left(`${JSON.stringify(text)} has a prefix longer than ${max} bits`)
  const bits = v4 ? 96 + prefix : prefix
  const network = Uint8Array.from(bytes.value, (b, i) => {
    const keep = Math.max(0, Math.min(8, bits - 8 * i))
    return b & ((0xff << (8 - keep)) & 0xff)
  })
  return Either.right({ text, network, bits })
}

/** Whether the range holds the address (any form, IPv4-mapped included); false for text that is no address. */
export const contains = (cidr: Cidr, address: string): boolean =>
  Option.match(addressBytes(address), {
    onNone: () => false,
    onSome: (bytes) => {
      for (let i = 0; i < 16; i++) {
        const keep = Math.max(0, Math.min(8, cidr.bits - 8 * i))
        if (keep === 0) return true
        const mask = (0xff << (8 - keep)) & 0xff
        if (((bytes[i] ?? 0) & mask) !== (cidr.network[i] ?? 0)) return false
      }
      return true
    },
  })

export const containsAny = (cidrs: ReadonlyArray<Cidr>, address: string): boolean =>
  cidrs.some((cidr) => contains(cidr, address))
