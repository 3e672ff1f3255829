/**
 * A compose file as docker compose reads it: YAML in any of its forms (any
 * indentation, flow style, anchors), its `services` each with the image, ports
 * and named volumes it declares. The YAML reader is loaded when the sandbox
 * starts (`load`), so that the program that serves no sandbox never loads it.
 */
import { isRecord } from "./Schema.js"

type Parse = (text: string) => unknown

let parse: Parse | undefined

/** Loads the YAML reader, once. */
export const load = async (): Promise<void> => {
  if (parse !== undefined) return
  const loaded = await import("yaml")
  // The bundle takes yaml's CommonJS build (its `node` export), whose names stand on its default.
  const yaml = (loaded as unknown as { readonly default?: typeof loaded }).default ?? loaded
  // Merge keys (`<<: *base`) as compose takes them; aliases to aliases beyond 100 refused, not expanded.
  parse = (text) => yaml.parse(text, { maxAliasCount: 100, merge: true, prettyErrors: false })
}

export interface Port {
  readonly IP?: string
  readonly PrivatePort: number
  readonly PublicPort?: number
  readonly Type: string
}

export interface ComposeService {
  readonly name: string
  /** Absent when the service builds its own. */
  readonly image?: string
  readonly ports: ReadonlyArray<Port>
  /** The named volumes it mounts, as the file names them (compose prefixes the project's name). */
  readonly volumes: ReadonlyArray<string>
}

/** `8080`, `8080:80`, `127.0.0.1:8080:80/udp`, or the long form `{target, published, protocol, host_ip}`. */
const portOf = (entry: unknown): Port | undefined => {
  if (isRecord(entry)) {
    const target = Number(entry.target)
    if (!Number.isInteger(target)) return undefined
    const published = Number(entry.published)
    return {
      ...(Number.isInteger(published) ? { IP: String(entry.host_ip ?? "0.0.0.0"), PublicPort: published } : {}),
      PrivatePort: target,
      Type: String(entry.protocol ?? "tcp"),
    }
  }
  if (typeof entry !== "string" && typeof entry !== "number") return undefined
  const [spec = "", protocol = "tcp"] = String(entry).split("/")
  const parts = spec.split(":")
  const target = Number(parts.at(-1))
  if (!Number.isInteger(target)) return undefined
  if (parts.length === 1) return { PrivatePort: target, Type: protocol }
  const published = Number(parts.at(-2))
  const ip = parts.length > 2 ? parts.slice(0, -2).join(":") : "0.0.0.0"
  return Number.isInteger(published)
    ? { IP: ip, PrivatePort: target, PublicPort: published, Type: protocol }
    : { PrivatePort: target, Type: protocol }
}

/** A named volume of `source:target[:mode]` or `{type: volume, source}`; a path (`./data`, `/srv`) is a bind mount. */
const volumeOf = (entry: unknown): string | undefined => {
  const source = isRecord(entry)
    ? entry.type === "volume" || entry.type === undefined
      ? entry.source
      : undefined
    : typeof entry === "string" && entry.includes(":")
      ? entry.slice(0, entry.indexOf(":"))
      : undefined
  return typeof source === "string" && source !== "" && !/^[./~$]/.test(source) ? source : undefined
}

const listOf = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** Files read lately, by their text: a list of stacks reads each stack's file again. */
const read = new Map<string, ReadonlyArray<ComposeService>>()
const READ_BOUND = 200

/** The services of a compose file; none for a file that is not YAML, or has no `services`. */
export const servicesIn = (contents: string): ReadonlyArray<ComposeService> => {
  const known = read.get(contents)
  if (known !== undefined) return known
  const services = readServices(contents)
  read.set(contents, services)
  if (read.size > READ_BOUND) read.delete(read.keys().next().value as string)
  return services
}

const readServices = (contents: string): ReadonlyArray<ComposeService> => {
  if (parse === undefined) throw new Error("the compose reader is not loaded: call ComposeFile.load() first")
  let document: unknown
  try {
    document = parse(contents)
  } catch {
    return []
  }
  const services = isRecord(document) ? document.services : undefined
  if (!isRecord(services)) return []
  return Object.entries(services).map(([name, spec]) => {
    const service = isRecord(spec) ? spec : {}
    return {
      name,
      ...(typeof service.image === "string" && service.image !== "" ? { image: service.image } : {}),
      ports: listOf(service.ports).flatMap((p) => portOf(p) ?? []),
      volumes: listOf(service.volumes).flatMap((v) => volumeOf(v) ?? []),
    }
  })
}
