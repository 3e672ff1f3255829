/**
 * The project's sandbox as the service of a test, with quick executions: each completes 1 ms after
 * it starts, so that a test waiting for one waits hardly at all.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Config from "../../src/Config.js"
import * as Sandbox from "../../src/Sandbox/Server.js"
import * as PatternReader from "../../src/Shared/PatternReader.js"
import * as InProcess from "./InProcess.js"

const FAST = { completeMs: 1 }

/**
 * The regex reader of every sandbox a thread starts: its workers (each loads RE2 in a thread of its
 * own) started by the first regex, then kept for the thread's other sandboxes. Apart from the
 * reader of the servers the tests make (Layers.ts), as the service and its client share no worker:
 * a sandbox's batch never waits behind the pattern its own client is reading.
 */
const patterns = PatternReader.makePool()

/** A sandbox for the test's scope, its service client in-process (InProcess.ts). */
export const scoped = (options: Sandbox.SandboxOptions = {}) =>
  Effect.acquireRelease(
    Effect.tap(Sandbox.make({ timing: FAST, patterns, ...options }), InProcess.register),
    InProcess.unregister,
  )

export const apiKeyConfig = (sandbox: Sandbox.Sandbox, timeoutMs = 30_000): Config.SvcConfigShape => ({
  url: sandbox.url,
  timeoutMs,
  credentials: {
    _tag: "ApiKey",
    key: Redacted.make(sandbox.apiKey.key),
    secret: Redacted.make(sandbox.apiKey.secret),
  },
})

export const loginConfig = (sandbox: Sandbox.Sandbox, password = sandbox.password): Config.SvcConfigShape => ({
  url: sandbox.url,
  timeoutMs: 30_000,
  credentials: { _tag: "Login", username: sandbox.username, password: Redacted.make(password) },
})

/** A POST as any client of the service makes it, with the given headers. */
export const post = async (url: string, path: string, body: unknown, headers: Record<string, string>) => {
  const response = await fetch(`${url}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  })
  return { status: response.status, body: parsed(await response.text()) }
}

/**
 * `post` to `sandbox` from the same process (its `handle`), with no socket: answered as over one
 * (test/unit/Sandbox/SandboxInProcess.test.ts), as the service's client reaches it (InProcess.ts).
 */
export const request = (sandbox: Sandbox.Sandbox, path: string, body: unknown, headers: Record<string, string>) =>
  sandbox
    .handle(
      { method: "POST", url: `/${path}`, headers: { "content-type": "application/json", ...lower(headers) } },
      typeof body === "string" ? body : JSON.stringify(body),
    )
    .then((answer) => ({ status: answer.status, body: parsed(answer.body) }))

/** Header names as a socket's server reads them. */
const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

/** An answer's body as JSON, or as its text where it is none. */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
const parsed = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Calls to `sandbox` as its admin: `call` answers the status and body, `ok` the body of a call that
 * succeeds (any other fails the test with its endpoint, status and body), `run` an execution's
 * Update once it is complete.
 */
export const asAdmin = (sandbox: Sandbox.Sandbox) => {
  const headers = { "x-api-key": sandbox.apiKey.key, "x-api-secret": sandbox.apiKey.secret }
  const call = (endpoint: string, params: unknown = {}) =>
    Effect.promise(() => request(sandbox, endpoint, params, headers))
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  const ok = (endpoint: string, params: unknown = {}): Effect.Effect<any> =>
    Effect.flatMap(call(endpoint, params), ({ status, body }) =>
      status === 200 ? Effect.succeed(body) : Effect.die(new Error(`${endpoint}: ${status} ${JSON.stringify(body)}`)),
    )
  const run = (operation: string, params: unknown) =>
    Effect.gen(function* () {
      const started = yield* ok(`execute/${operation}`, params)
      for (;;) {
        const update = yield* ok("read/GetUpdate", { id: started._id.$oid })
        if (update.status === "Complete") return update
        yield* Effect.sleep("1 millis")
      }
    })
  return { call, ok, run }
}
