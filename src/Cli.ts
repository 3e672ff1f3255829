/**
 * The command line: the server takes its configuration from the environment,
 * so the only arguments are --help and --version.
 */
import { DEFAULT_TIMEOUT_MS } from "./Config.js"
import { VERSION } from "./Version.js"

export type Command =
  | { readonly _tag: "Serve" }
  | { readonly _tag: "Help" }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Invalid"; readonly argument: string }

export const parse = (argv: ReadonlyArray<string>): Command => {
  const [first] = argv
  if (first === undefined) return { _tag: "Serve" }
  if (first === "--help" || first === "-h" || first === "help") return { _tag: "Help" }
  if (first === "--version" || first === "-v" || first === "version") return { _tag: "Version" }
  return { _tag: "Invalid", argument: first }
}

export const HELP = `svc-mcp ${VERSION}: an MCP server (stdio) for the infrastructure-management service.

Usage: svc-mcp            serve MCP over stdin/stdout
       svc-mcp --help     this text
       svc-mcp --version  the version

Configuration (environment):
  SVC_URL                    required: the service's base URL, http(s)://...
  SVC_API_KEY, SVC_API_SECRET
                             API key credentials (preferred)
  SVC_INIT_ADMIN_USERNAME, SVC_INIT_ADMIN_PASSWORD
                             login credentials, used only without an API key
  SVC_TIMEOUT_MS             time-out of each call to the service (default ${DEFAULT_TIMEOUT_MS})
`

export { VERSION }
