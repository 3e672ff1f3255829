/**
 * The command line. Configuration comes from the environment; arguments only
 * choose what to run.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { Estate } from "../Sandbox/Estates/Estate.js"
import type { Scenario } from "../Sandbox/Estates/Scenarios.js"
import { parsePort as parsePortText } from "../Settings/Read.js"
import { VERSION } from "../Shared/Version.js"
import * as Flags from "./Flags.js"
// Its command line alone: the rest of setup is loaded by its command.
import * as Setup from "./Setup/Options.js"

export type HelpTopic = "all" | "setup" | "people"

export type Command =
  | {
      readonly _tag: "Serve"
      readonly sandbox: boolean
      readonly httpPort: number | undefined
      /** --sandbox --services a,b: one sandbox per name. */
      readonly services?: ReadonlyArray<string>
      /** --sandbox --estate large: the sandboxes' estate; the small one by default. */
      readonly estate?: Estate
      /** --sandbox --scenario incident: the day the sandboxes are having; calm by default. */
      readonly scenario?: Scenario
    }
  | { readonly _tag: "Sandbox"; readonly port: number; readonly estate?: Estate; readonly scenario?: Scenario }
  | { readonly _tag: "Scenarios" }
  | { readonly _tag: "Check" }
  | { readonly _tag: "People"; readonly revoke?: string }
  | { readonly _tag: "Setup"; readonly options: Setup.Options }
  | {
      readonly _tag: "AuditVerify"
      readonly files: ReadonlyArray<string>
      readonly store?: string
      readonly prefix?: string
    }
  | { readonly _tag: "Help"; readonly topic: HelpTopic }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Invalid"; readonly message: string }

const invalid = (message: string): Command => ({ _tag: "Invalid", message })

const parsePort = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Option.getOrUndefined(parsePortText(value))

// Said here rather than imported: the sandbox's code loads only when it runs.
const ESTATES: ReadonlyArray<Estate> = ["small", "large"]
const isEstate = (value: string): value is Estate => (ESTATES as ReadonlyArray<string>).includes(value)
const ESTATE_USAGE = `--estate takes ${ESTATES.join(" or ")}`
export const SCENARIO_NAMES: ReadonlyArray<Scenario> = ["calm", "incident", "drift"]
const isScenario = (value: string): value is Scenario => (SCENARIO_NAMES as ReadonlyArray<string>).includes(value)
const SCENARIO_USAGE = `--scenario takes ${SCENARIO_NAMES.join(", ")} or list`

/** `--scenario NAME`'s value: a scenario, the listing of them, or what is wrong. */
const scenarioOf = (value: string): Scenario | "list" | Command =>
  value === "list" || isScenario(value) ? value : invalid(SCENARIO_USAGE)

const SERVE_FLAGS: Flags.Kinds = {
  sandbox: "boolean",
  "http-port": "string",
  services: "string",
  estate: "string",
  scenario: "string",
}

/** `--services a,b`'s names, or what is wrong. */
const servicesOf = (value: string): ReadonlyArray<string> | Command => {
  const services = value.split(",").map((name) => name.trim())
  return services.every((name) => /^[a-z0-9][a-z0-9-]*$/.test(name)) && new Set(services).size === services.length
    ? services
    : invalid("--services takes distinct comma-separated names of lowercase letters, digits and -")
}

/** `[--sandbox [--services a,b] [--estate small|large] [--scenario NAME]] [--http-port N]`, in any order. */
const parseServe = (argv: ReadonlyArray<string>): Command => {
  // What a client starts: no flags to read.
  if (argv.length === 0) return { _tag: "Serve", sandbox: false, httpPort: undefined }
  const read = Flags.read(argv, SERVE_FLAGS, false)
  if (Either.isLeft(read)) return invalid(`unknown argument ${JSON.stringify(read.left)}`)
  const { flags } = read.right
  const sandbox = flags.has("sandbox")
  const named = flags.has("scenario") ? scenarioOf(flags.get("scenario") ?? "") : undefined
  if (named === "list") return { _tag: "Scenarios" }
  if (typeof named === "object") return named
  const estate = flags.has("estate") ? (flags.get("estate") ?? "") : undefined
  if (estate !== undefined && !isEstate(estate)) return invalid(ESTATE_USAGE)
  const services = flags.has("services") ? servicesOf(flags.get("services") ?? "") : undefined
  if (services !== undefined && "_tag" in services) return services
  const httpPort = flags.has("http-port") ? parsePort(flags.get("http-port")) : undefined
  if (flags.has("http-port") && httpPort === undefined) return invalid("--http-port takes a port from 0 to 65535")
  if (services !== undefined && !sandbox) return invalid("--services goes with --sandbox; set SVC_SERVICES otherwise")
  if (estate !== undefined && !sandbox) return invalid("--estate goes with --sandbox")
  if (named !== undefined && !sandbox) return invalid("--scenario goes with --sandbox")
  return {
    _tag: "Serve",
    sandbox,
    httpPort,
    ...(services === undefined ? {} : { services }),
    ...(estate === undefined ? {} : { estate }),
    ...(named === undefined ? {} : { scenario: named }),
  }
}

const AUDIT_USAGE = "usage: svc-mcp audit verify [--store URL [--prefix P]] FILE..."

/** `audit verify [--store URL [--prefix P]] FILE...`: at least one file or the store. */
const parseAudit = (argv: ReadonlyArray<string>): Command => {
  const [verb, ...rest] = argv
  if (verb !== "verify") return invalid(AUDIT_USAGE)
  const read = Flags.read(rest, { store: "string", prefix: "string" }, true)
  if (Either.isLeft(read)) return invalid(AUDIT_USAGE)
  const { flags, positionals: files } = read.right
  const store = flags.get("store")
  const prefix = flags.get("prefix")
  const missing = (flags.has("store") && store === undefined) || (flags.has("prefix") && prefix === undefined)
  if (missing || (files.length === 0 && store === undefined) || (prefix !== undefined && store === undefined)) {
    return invalid(AUDIT_USAGE)
  }
  return {
    _tag: "AuditVerify",
    files,
    ...(store === undefined ? {} : { store }),
    ...(prefix === undefined ? {} : { prefix }),
  }
}

/** `sandbox [--port N] [--estate small|large] [--scenario NAME]`. */
const parseSandbox = (rest: ReadonlyArray<string>): Command => {
  const usage = invalid(
    "usage: svc-mcp sandbox [--port N] [--estate small|large] [--scenario NAME], with N from 0 to 65535",
  )
  const read = Flags.read(rest, { port: "string", estate: "string", scenario: "string" }, false)
  if (Either.isLeft(read)) return usage
  const { flags } = read.right
  const port = flags.has("port") ? parsePort(flags.get("port")) : 0
  if (port === undefined) return usage
  const estate = flags.has("estate") ? (flags.get("estate") ?? "") : undefined
  if (estate !== undefined && !isEstate(estate)) return invalid(ESTATE_USAGE)
  const named = flags.has("scenario") ? scenarioOf(flags.get("scenario") ?? "") : undefined
  if (named === "list") return { _tag: "Scenarios" }
  if (typeof named === "object") return named
  return {
    _tag: "Sandbox",
    port,
    ...(estate === undefined ? {} : { estate }),
    ...(named === undefined ? {} : { scenario: named }),
  }
}

const TOP_FLAGS: ReadonlyArray<string> = ["--help", "-h", "--version", "-v"]

export const parse = (argv: ReadonlyArray<string>): Command => {
  const [first, ...rest] = argv
  const extra = (command: string, args: ReadonlyArray<string>) =>
    args.length > 0 ? invalid(`${command} takes no argument ${JSON.stringify(args[0])}`) : undefined
  // Flags first are the server's, --help and --version aside.
  if (first === undefined || (first.startsWith("-") && !TOP_FLAGS.includes(first))) return parseServe(argv)
  switch (first) {
    case "--help":
    case "-h":
      return extra(first, rest) ?? { _tag: "Help", topic: "all" }
    case "help": {
      const [topic, ...more] = rest
      if (topic === undefined) return { _tag: "Help", topic: "all" }
      if ((topic !== "setup" && topic !== "people") || more.length > 0) {
        return invalid("usage: svc-mcp help [setup | people]")
      }
      return { _tag: "Help", topic }
    }
    case "--version":
    case "-v":
    case "version":
      return { _tag: "Version" }
    case "check":
      return extra("check", rest) ?? { _tag: "Check" }
    case "audit":
      return parseAudit(rest)
    case "people":
      if (rest[0] === "--help" || rest[0] === "-h") return { _tag: "Help", topic: "people" }
      if (rest.length === 0) return { _tag: "People" }
      if (rest[0] === "revoke" && rest.length === 2 && rest[1] !== "")
        return { _tag: "People", revoke: rest[1] as string }
      return invalid("usage: svc-mcp people [revoke NAME]")
    case "setup": {
      if (rest[0] === "--help" || rest[0] === "-h") return { _tag: "Help", topic: "setup" }
      return Either.match(Setup.parse(rest), {
        onLeft: invalid,
        onRight: (options): Command => ({ _tag: "Setup", options }),
      })
    }
    case "sandbox":
      return parseSandbox(rest)
    default:
      return invalid(`unknown argument ${JSON.stringify(first)}`)
  }
}

export { VERSION }
