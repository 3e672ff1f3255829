/**
 * The built server, started the way an assistant starts it: as a child process
 * spoken to over stdio by the SDK's Client.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Clients from "./Clients.js"

/** The executable as published: package.json's bin. */
export const ENTRY = Path.resolve(
  import.meta.dirname,
  "../..",
  (
    JSON.parse(Fs.readFileSync(Path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      bin: Record<string, string>
    }
  ).bin["svc-mcp"] as string,
)

const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "" })

export interface Connected {
  readonly client: Client
  /** What the server wrote on stderr so far. */
  readonly stderr: () => string
  /** Errors the client's transport met: a line on stdout that is not JSON-RPC shows here. */
  readonly protocolErrors: Array<Error>
}

/** Which Node runs the server: the tests' own unless a test names another binary. */
export interface Runtime {
  readonly node?: string
}

/**
 * A connected client for the length of a scope; the server is stopped with it.
 * `command` starts the server: the built one by default, or another (an installed one).
 */
export const connect = (
  env: Record<string, string>,
  args: ReadonlyArray<string> = [],
  command: readonly [string, ...Array<string>] = [process.execPath, ENTRY],
) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Connected> => {
      const transport = new StdioClientTransport({
        command: command[0],
        args: [...command.slice(1), ...args],
        env: { ...baseEnv(), ...env },
        stderr: "pipe",
      })
      let stderr = ""
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      const protocolErrors: Array<Error> = []
      const client = new Client({ name: "svc-mcp-test", version: "1.0.0" })
      client.onerror = (error) => protocolErrors.push(error)
      await client.connect(transport)
      return { client, stderr: () => stderr, protocolErrors }
    }),
    ({ client }) => Effect.promise(() => client.close()),
  )

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end, with `input` on stdin; interrupting it kills it. */
export const runCommand = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string; readonly input?: string } = {},
) =>
  Effect.async<Finished>((resume) => {
    const child = ChildProcess.spawn(command, args, {
      env: { ...baseEnv(), ...options.env },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ["pipe", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    child.stdin.end(options.input ?? "")
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Runs the built server with `input` on stdin, to its end. */
export const run = (env: Record<string, string>, args: ReadonlyArray<string> = [], input = "") =>
  runCommand(process.execPath, [ENTRY, ...args], { env, input })

export interface Serving {
  /** The MCP endpoint, as the server announced it. */
  readonly url: string
  readonly child: ChildProcess.ChildProcess
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** The built server in HTTP mode on a free port, once it says where it listens, until the scope ends. */
export const serveHttp = (env: Record<string, string>, args: ReadonlyArray<string> = [], runtime: Runtime = {}) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Serving> => {
      const child = ChildProcess.spawn(runtime.node ?? process.execPath, [ENTRY, ...args], {
        env: { ...baseEnv(), SVC_MCP_HTTP_PORT: "0", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let stderr = ""
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString("utf8")
          const found = /over HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)
          if (found?.[1] !== undefined) resolve(found[1])
        })
        child.on("exit", () => reject(new Error(`the server exited: ${stderr}`)))
      })
      return { url, child, stderr: () => stderr, exited }
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL")),
  )

/** The built server, started as a client starts it, spoken to by the SDK v2 Client (`Clients`) over stdio. */
export const v2 = (started: Omit<Clients.Started, "command"> & Partial<Pick<Clients.Started, "command">>) =>
  Clients.overStdio({ command: [process.execPath, ENTRY], ...started })
