/**
 * `svc-mcp setup <client> --http URL` for a server with sign-in: the client
 * needs the URL alone, and signs in by itself on first connect (the server's
 * 401 names its resource metadata, which names the identity provider). No
 * secret goes in any configuration. Whether the server signs in is asked of it:
 * its protected resource metadata.
 */
import * as Effect from "effect/Effect"
import { METADATA_PATH } from "../../SignIn/Resource.js"
import type { Client } from "./Options.js"

/** The RFC 9728 metadata URL of an MCP endpoint URL. */
const metadataUrlOf = (endpoint: string): string => {
  const url = new URL(endpoint)
  const path = url.pathname.replace(/\/+$/, "")
  return `${url.origin}${METADATA_PATH}${path === "/" ? "" : path}`
}

/** Whether the server at `endpoint` publishes protected resource metadata for it (false when it cannot be asked). */
export const usesSignIn = (endpoint: string, fetcher: typeof fetch = fetch): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    try {
      const response = await fetcher(metadataUrlOf(endpoint), {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(3000),
      })
      if (!response.ok) return false
      const metadata = (await response.json()) as { resource?: unknown; authorization_servers?: unknown }
      return typeof metadata.resource === "string" && Array.isArray(metadata.authorization_servers)
    } catch {
      return false
    }
  })

const SIGN_IN =
  "The server uses sign-in: the client opens your browser to sign in with your identity provider when it first " +
  "connects, and keeps the token; nothing secret is in this configuration."

const commandLine = (words: ReadonlyArray<string>) => `${words.join(" ")}\n`

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/** The client's configuration for a server with sign-in: its URL alone. */
export const render = (client: Client, name: string, url: string, notes: Array<string>): string => {
  notes.push(SIGN_IN)
  switch (client) {
    case "claude-code":
      notes.unshift(
        `Claude Code: run this once, then /mcp in Claude Code and choose ${name} to sign in (--scope user offers it in all your projects).`,
      )
      return commandLine(["claude", "mcp", "add", "--transport", "http", "--scope", "user", name, url])
    case "gemini":
      notes.unshift(`Gemini CLI: run this once; \`/mcp auth ${name}\` in Gemini CLI signs in.`)
      return commandLine(["gemini", "mcp", "add", "--scope", "user", "--transport", "http", name, url])
    case "codex":
      notes.unshift(`Codex: run this once, then \`codex mcp login ${name}\` to sign in.`)
      return commandLine(["codex", "mcp", "add", name, "--url", url])
    case "vscode":
      notes.unshift(
        'VS Code: save this as .vscode/mcp.json in your workspace (or merge its "servers" into an existing one); ' +
          "VS Code asks you to allow the sign-in when it first starts the server.",
      )
      return json({ servers: { [name]: { type: "http", url } } })
    case "cursor":
      notes.unshift(
        'Cursor: merge this into "mcpServers" of ~/.cursor/mcp.json; Cursor shows "Needs login" until you sign in.',
      )
      return json({ mcpServers: { [name]: { url } } })
    case "claude-desktop":
      notes.unshift(
        "Claude (desktop, web): Settings > Connectors > Add custom connector, with this URL; Claude signs in when you connect it.",
      )
      return `${url}\n`
  }
}
