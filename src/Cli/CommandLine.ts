/**
 * The command line. Configuration comes from the environment; arguments only
 * choose what to run.
 */
import * as Option from "effect/Option"
import { DEFAULT_TIMEOUT_MS } from "../Config.js"
import { DEFAULT_HOST } from "../Mcp/HttpConfig.js"
import { parsePort as parsePortText } from "../Settings/Read.js"
import { VERSION } from "../Shared/Version.js"
import { DEFAULT_SETTINGS, MODES } from "../Tools/Settings.js"
import * as Setup from "./Setup.js"

export type Command =
  | { readonly _tag: "Serve"; readonly sandbox: boolean; readonly httpPort: number | undefined }
  | { readonly _tag: "Sandbox"; readonly port: number }
  | { readonly _tag: "Check" }
  | { readonly _tag: "Setup"; readonly options: Setup.Options }
  | { readonly _tag: "Help" }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Invalid"; readonly message: string }

const invalid = (message: string): Command => ({ _tag: "Invalid", message })

const parsePort = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Option.getOrUndefined(parsePortText(value))

/** `[--sandbox] [--http-port N]`, in any order. */
const parseServe = (argv: ReadonlyArray<string>): Command => {
  let sandbox = false
  let httpPort: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--sandbox" && !sandbox) {
      sandbox = true
    } else if (arg === "--http-port" && httpPort === undefined) {
      httpPort = parsePort(argv[++i])
      if (httpPort === undefined) return invalid("--http-port takes a port from 0 to 65535")
    } else {
      return invalid(`unknown argument ${JSON.stringify(arg)}`)
    }
  }
  return { _tag: "Serve", sandbox, httpPort }
}

export const parse = (argv: ReadonlyArray<string>): Command => {
  const [first, ...rest] = argv
  const extra = (command: string, args: ReadonlyArray<string>) =>
    args.length > 0 ? invalid(`${command} takes no argument ${JSON.stringify(args[0])}`) : undefined
  if (first === undefined || first === "--sandbox" || first === "--http-port") return parseServe(argv)
  switch (first) {
    case "--help":
    case "-h":
    case "help":
      return { _tag: "Help" }
    case "--version":
    case "-v":
    case "version":
      return { _tag: "Version" }
    case "check":
      return extra("check", rest) ?? { _tag: "Check" }
    case "setup": {
      const options = Setup.parse(rest)
      return typeof options === "string" ? invalid(options) : { _tag: "Setup", options }
    }
    case "sandbox": {
      if (rest.length === 0) return { _tag: "Sandbox", port: 0 }
      const [flag, value, ...more] = rest
      const port = parsePort(value)
      if (flag !== "--port" || port === undefined || more.length > 0) {
        return invalid("usage: svc-mcp sandbox [--port N], with N from 0 to 65535")
      }
      return { _tag: "Sandbox", port }
    }
    default:
      return invalid(`unknown argument ${JSON.stringify(first)}`)
  }
}

export const HELP = `svc-mcp ${VERSION}: an MCP server (stdio) for the infrastructure-management service.

Usage: svc-mcp                     serve MCP over stdin/stdout
       svc-mcp --http-port N       serve MCP over Streamable HTTP at http://${DEFAULT_HOST}:N/mcp
       svc-mcp --sandbox           serve MCP against an in-memory sandbox service (no setup;
                                   with --http-port too)
       svc-mcp sandbox [--port N]  run the sandbox service alone on 127.0.0.1, print its URL
       svc-mcp check               check that the configuration reaches the service and logs in
       svc-mcp setup <client> [--sandbox | --http URL]
                                   print what to run or paste to add this server to a client:
                                   ${Setup.CLIENTS.join(", ")}
       svc-mcp --help | --version

Configuration (environment):
  SVC_URL                    required: the service's base URL, http(s)://...
  SVC_API_KEY, SVC_API_SECRET
                             API key credentials (preferred)
  SVC_INIT_ADMIN_USERNAME, SVC_INIT_ADMIN_PASSWORD
                             login credentials, used only without an API key
  SVC_TIMEOUT_MS             time-out of each call to the service (default ${DEFAULT_TIMEOUT_MS})
  SVC_MODE                   ${MODES.join(" | ")} (default ${DEFAULT_SETTINGS.mode})
  SVC_ALLOW, SVC_DENY        tool:selector patterns, * as wildcard, comma separated
  SVC_CONFIRM                the same patterns: calls the user confirms before they are sent
  SVC_WAIT_TIMEOUT_MS        how long svc_execute with wait follows an execution (default ${DEFAULT_SETTINGS.waitTimeoutMs})
  SVC_MAX_OUTPUT_CHARS       the longest text of a tool result (default ${DEFAULT_SETTINGS.maxOutputChars})
  SVC_REVEAL_SECRETS         true to show credentials in answers (default ${DEFAULT_SETTINGS.revealSecrets})
  SVC_CHECK_PARAMS           off to send params unchecked, for a service newer than
                             the definitions shipped (default on)
  SVC_MCP_HTTP_PORT, SVC_MCP_HTTP_HOST
                             serve over HTTP on this port and host (default ${DEFAULT_HOST})
  SVC_MCP_TOKEN              the Bearer token HTTP clients must send (required off loopback)
  Each credential X may be read from a file named by X_FILE instead.

Everything but the MCP protocol is written to stderr, except what setup prints to be run or pasted.`

export { VERSION }
