/**
 * The SDK v2 Client, as the tests make it: in either protocol era, answering
 * the server's questions as the test's user would, over stdio to a server it
 * starts (the built one: `Spawn.v2`) or over Streamable HTTP to one serving.
 * The other kinds of client each have their own helper: the SDK v1 Client over
 * stdio (`Spawn.connect`) and over HTTP (`HttpMcp.connect`), a raw 2025-era
 * HTTP client (`LegacyHttp`), and clients of a server in this process (`Mcp`).
 * It names no build, so that the unit lane may use it.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as Effect from "effect/Effect"

/** `modern`: 2026-07-28, negotiated with `server/discover`; `legacy`: 2025-11-25 after `initialize`. */
export type Era = "modern" | "legacy"

/**
 * How the user answers each question; undefined: the client declares no elicitation, so it cannot be asked.
 * `open` and `refuse-page`: the client declares URL-mode elicitation too, and accepts every question but a
 * page's, which it accepts (`open`) or declines (`refuse-page`); the pages' addresses are kept in `pages`.
 */
export type Answering = "accept" | "decline" | "open" | "refuse-page" | undefined

export interface V2 {
  readonly client: Client
  /** The questions the server asked, in order. */
  readonly asked: Array<string>
  /** The pages the server asked the user to open (URL mode), in order. */
  readonly pages: Array<string>
  /** The ids of the pages' elicitations (the 2025 revision gives them), in order. */
  readonly elicitations: Array<string>
  /** The ids `notifications/elicitation/complete` named, in order. */
  readonly completed: Array<string>
}

/** A client not yet connected. */
const v2 = (name: string, era: Era, answering: Answering = undefined): V2 => {
  const client = new Client(
    { name, version: "1.0.0" },
    {
      ...(answering === undefined
        ? {}
        : {
            capabilities: {
              elicitation: answering === "open" || answering === "refuse-page" ? { form: {}, url: {} } : { form: {} },
            },
          }),
      ...(era === "modern" ? { versionNegotiation: { mode: "auto" as const } } : {}),
    },
  )
  const asked: Array<string> = []
  const pages: Array<string> = []
  const elicitations: Array<string> = []
  const completed: Array<string> = []
  client.setNotificationHandler("notifications/elicitation/complete", (notification) => {
    completed.push(notification.params.elicitationId)
  })
  if (answering !== undefined) {
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params.message)
      if (request.params.mode === "url") {
        pages.push(request.params.url)
        if (typeof request.params.elicitationId === "string") elicitations.push(request.params.elicitationId)
        return { action: answering === "open" ? "accept" : "decline" }
      }
      return answering === "decline" ? { action: answering } : { action: "accept", content: {} }
    })
  }
  return { client, asked, pages, elicitations, completed }
}

/** `made` connected over `transport` for the length of a scope. */
const connected = <A extends V2>(made: A, transport: Parameters<Client["connect"]>[0]) =>
  Effect.acquireRelease(
    Effect.promise(() => made.client.connect(transport).then(() => made)),
    ({ client }) => Effect.promise(() => client.close()),
  )

export interface Started {
  readonly name: string
  readonly era: Era
  readonly answering?: Answering
  /** Added to a PATH of the tests' own. */
  readonly env?: Record<string, string>
  /** After the entry, or after `command`'s own arguments. */
  readonly args?: ReadonlyArray<string>
  /** What starts the server, before `args`. */
  readonly command: readonly [string, ...Array<string>]
}

/** A server started as a client starts it, spoken to over stdio, with what it wrote on stderr so far. */
export const overStdio = (started: Started) => {
  const [command, ...before] = started.command
  const transport = new StdioClientTransport({
    command,
    args: [...before, ...(started.args ?? [])],
    env: { PATH: process.env.PATH ?? "", ...started.env },
    stderr: "pipe",
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  return Effect.map(connected(v2(started.name, started.era, started.answering), transport), (made) => ({
    ...made,
    stderr: () => stderr,
  }))
}

/** A server serving at `url`, spoken to over Streamable HTTP, with `headers` on each request (an access token). */
export const overHttp = (
  url: string,
  client: {
    readonly name: string
    readonly era: Era
    readonly answering?: Answering
    readonly headers?: Record<string, string>
  },
) =>
  connected(
    v2(client.name, client.era, client.answering),
    new StreamableHTTPClientTransport(
      new URL(url),
      client.headers === undefined ? undefined : { requestInit: { headers: client.headers } },
    ),
  )
