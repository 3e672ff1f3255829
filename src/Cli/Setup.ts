/**
 * `svc-mcp setup <client>`: what to run, or paste into which file, so that an
 * MCP client starts this server (or reaches one running over HTTP).
 *
 * The command or file content goes to stdout, alone, so that it can be piped
 * to a shell or redirected into the file; this is not the server, so stdout
 * carries no protocol here. Where it goes and what to replace go to stderr.
 *
 * Secrets are never copied from the environment: credentials appear as the
 * `_FILE` paths the server reads them from, as placeholders, or (VS Code) as
 * inputs the client asks for once and keeps.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { VERSION } from "../Shared/Version.js"
import { type Rendered, render } from "./Setup/ClientConfig.js"
import { type Environment, type Invocation, invocation, readEnvironment } from "./Setup/Environment.js"
import type { Options } from "./Setup/Options.js"
import * as SignInSetup from "./Setup/SignInSetup.js"
import { server } from "./Setup/Target.js"

export { quote, type Rendered } from "./Setup/ClientConfig.js"
export {
  type Environment,
  emptyEnvironment,
  type Invocation,
  invocation,
  PLACEHOLDER,
  readEnvironment,
  TOKEN_VARIABLE,
} from "./Setup/Environment.js"
export { CLIENTS, type Client, HELP, type Options, parse, USAGE } from "./Setup/Options.js"

/** The configuration for one client, and the notes that go with it. Pure: the tests call it directly. */
export const make = (options: Options, invocation: Invocation, env: Environment, signIn = false): Rendered => {
  const notes: Array<string> = []
  const served = server(options, invocation, env, notes)
  const target = served._tag === "Http" && signIn ? { ...served, signIn } : served
  const name = options.sandbox ? "svc-sandbox" : "svc"
  const stdout = render(options.client, name, target, notes)
  const gui = options.client === "claude-desktop" || options.client === "vscode" || options.client === "cursor"
  if (target._tag === "Stdio" && gui && invocation.viaNode !== undefined) {
    const [node, script] = invocation.viaNode
    notes.push(
      `${invocation.command} runs with the node found on the PATH; if the client says node is not found ` +
        `(an app started outside your shell does not read its PATH), use "command": ${JSON.stringify(node)} ` +
        `and put ${JSON.stringify(script)} first in "args".`,
    )
  }
  if (target._tag === "Stdio" && invocation.npx === true) {
    notes.push(
      `npx -y ${invocation.args[1]} runs the latest published version (npm keeps it in its cache); ` +
        `write ${invocation.args[1]}@${VERSION} to hold this one. A client that says npx is not found ` +
        "(an app started outside your shell does not read its PATH) takes npx's absolute path: command -v npx.",
    )
  }
  if (target._tag === "Stdio" && invocation.script) {
    notes.push(
      `It starts ${invocation.args[0]} with this Node (${invocation.command}); ` +
        "once svc-mcp is installed (npm install -g), run svc-mcp setup again to name the installed command.",
    )
  }
  return { stdout, notes }
}

/** Prints the configuration on stdout and the notes on stderr. */
export const run = (options: Options) =>
  Effect.gen(function* () {
    const env = yield* readEnvironment
    // A server with sign-in is configured by its URL alone: ask it.
    const signIn = options.http === undefined ? false : yield* SignInSetup.usesSignIn(options.http)
    const rendered = make(options, invocation(process.argv[1] ?? "svc-mcp", process.execPath), env, signIn)
    yield* Effect.sync(() => process.stdout.write(rendered.stdout))
    yield* Console.error(rendered.notes.join("\n"))
  })
