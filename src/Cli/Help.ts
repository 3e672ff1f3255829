/**
 * The help the command line prints (`svc-mcp --help`, `help setup`, `help people`): every command,
 * every variable read (Variables.ts), the patterns' syntax. Loaded when help is asked for, not by
 * a start, which reads none of it.
 */
import { DEFAULT_HOST } from "../Settings/Http.js"
import { VERSION } from "../Shared/Version.js"
import { destructiveByTool } from "../Tools/Catalog/Classes.js"
import type { HelpTopic } from "./CommandLine.js"
import * as Setup from "./Setup/Options.js"
import * as Variables from "./Variables.js"

/** The commands, one line each. */
const COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["svc-mcp", "serve MCP over stdin/stdout (what a client starts)"],
  ["svc-mcp --http-port N", `serve MCP over Streamable HTTP at http://${DEFAULT_HOST}:N/mcp`],
  ["svc-mcp --sandbox", "serve MCP on in-memory sandboxes (--services; --estate; --scenario)"],
  ["svc-mcp sandbox [--port N]", "run the sandbox alone, print its URL (--estate; --scenario)"],
  ["svc-mcp check", "check that the configuration reaches the service and logs in"],
  ["svc-mcp people [revoke NAME]", "list who holds a minted key, with its age; revoke one"],
  ["svc-mcp audit verify FILE...", "verify audit logs are whole (--store URL: its stream too)"],
  ["svc-mcp setup <client>", "print what to add this server to a client with (svc-mcp help setup)"],
  ["svc-mcp help [COMMAND]", "print this help, or setup's or people's"],
  ["svc-mcp --version", "print the version"],
]

const width = Math.max(...COMMANDS.map(([usage]) => usage.length)) + 2

/** Words wrapped to lines of at most `width` characters, each line indented by `indent`. */
const wrap = (text: string, indent: string, width = 100): string => {
  const lines: Array<string> = []
  let line = indent
  for (const word of text.split(" ")) {
    if (line.length + word.length + 1 > width && line.trim() !== "") {
      lines.push(line.trimEnd())
      line = indent
    }
    line += `${word} `
  }
  return [...lines, line.trimEnd()].join("\n")
}

/** How SVC_ALLOW, SVC_DENY, SVC_CONFIRM and SVC_GUARD_HOLD are written, and the class destructive's members. */
const patternsHelp = (): string =>
  [
    "Patterns (SVC_ALLOW, SVC_DENY, SVC_CONFIRM, SVC_GUARD_HOLD), comma separated: tool:selector, where",
    "* matches any run of characters anywhere (svc_execute:*prune* takes run_server_prune_images too),",
    "or the class destructive: every call that removes or stops something, at every reach.",
    "SVC_CONFIRM=destructive asks before each of them:",
    ...destructiveByTool().map(([tool, selectors]) => wrap(`${tool}: ${selectors}`, "    ").replace(/^ {4}/, "  ")),
  ].join("\n")

/** `svc-mcp --help`: every command and every variable read. Printed with a newline after it. */
export const HELP = `svc-mcp ${VERSION}: an MCP server for the infrastructure-management service.

${COMMANDS.map(([usage, what]) => `  ${usage.padEnd(width)}${what}`).join("\n")}

Configuration comes from the environment, read once at start; an empty value counts as unset,
and a malformed one stops the server with one line naming it (exit code 2).

${Variables.help()}

${patternsHelp()}

Everything but the MCP protocol is written to stderr, except what setup prints to be run or pasted.`

/** `svc-mcp people --help`. */
const PEOPLE_HELP = `usage: svc-mcp people [revoke NAME]

  svc-mcp people               list on stdout the service users keys are minted
                               for: each person, their service user, their newest
                               key's age; those revoked (disabled) too
  svc-mcp people revoke NAME   delete NAME's minted keys and disable their service
                               user: no key is minted for them again until an
                               admin enables it at the service. Exits 1 when the
                               service has no user for NAME, or it held no key

NAME is the identity as SVC_MCP_IDENTITIES names it: the value of the file's
claim ("sub" unless it says otherwise; e.g. an email), and with several issuers
in SVC_MCP_OAUTH_ISSUER, "<issuer>#<value>". \`svc-mcp people\` lists it so.

It needs what the server needs to reach the service as an admin: SVC_URL, and
SVC_API_KEY with SVC_API_SECRET (or their _FILE forms, or SVC_INIT_ADMIN_USERNAME
with SVC_INIT_ADMIN_PASSWORD); where the replicas share a store, SVC_MCP_STORE
and SVC_MCP_STATE_KEY, so that the key they hold is forgotten there too. With
SVC_AUDIT_LOG (and SVC_AUDIT_KEY), a revocation is written to the audit log.`

/** The help of a topic: the whole, or a command's. */
export const help = (topic: HelpTopic): string =>
  topic === "setup" ? Setup.HELP : topic === "people" ? PEOPLE_HELP : HELP
