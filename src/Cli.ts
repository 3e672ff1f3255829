/**
 * The command line. Configuration comes from the environment; arguments only
 * choose what to run.
 */
import { DEFAULT_TIMEOUT_MS } from "./Config.js"
import { VERSION } from "./Version.js"

export type Command =
  | { readonly _tag: "Serve"; readonly sandbox: boolean }
  | { readonly _tag: "Sandbox"; readonly port: number }
  | { readonly _tag: "Check" }
  | { readonly _tag: "Help" }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Invalid"; readonly message: string }

const invalid = (message: string): Command => ({ _tag: "Invalid", message })

const parsePort = (value: string | undefined): number | undefined => {
  if (value === undefined || !/^\d+$/.test(value)) return undefined
  const port = Number(value)
  return port <= 65535 ? port : undefined
}

export const parse = (argv: ReadonlyArray<string>): Command => {
  const [first, ...rest] = argv
  const extra = (command: string, args: ReadonlyArray<string>) =>
    args.length > 0 ? invalid(`${command} takes no argument ${JSON.stringify(args[0])}`) : undefined
  switch (first) {
    case undefined:
      return { _tag: "Serve", sandbox: false }
    case "--sandbox":
      return extra("--sandbox", rest) ?? { _tag: "Serve", sandbox: true }
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
       svc-mcp --sandbox           serve MCP against an in-memory sandbox service (no setup)
       svc-mcp sandbox [--port N]  run the sandbox service alone on 127.0.0.1, print its URL
       svc-mcp check               check that the configuration reaches the service and logs in
       svc-mcp --help | --version

Configuration (environment):
  SVC_URL                    required: the service's base URL, http(s)://...
  SVC_API_KEY, SVC_API_SECRET
                             API key credentials (preferred)
  SVC_INIT_ADMIN_USERNAME, SVC_INIT_ADMIN_PASSWORD
                             login credentials, used only without an API key
  SVC_TIMEOUT_MS             time-out of each call to the service (default ${DEFAULT_TIMEOUT_MS})

Everything but the MCP protocol is written to stderr.`

export { VERSION }
