/**
 * A request from the same process (`Sandbox.handle`) is answered as the same request over the
 * sandbox's socket: every unit test that reaches a sandbox reaches it so (test/support/InProcess.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sandboxes from "../../support/Sandbox.js"

const REQUESTS: ReadonlyArray<readonly [string, string, string, "admin" | "wrong" | "none"]> = [
  ["POST", "/read/GetVersion", "{}", "admin"],
  ["POST", "/read/ListServers", "{}", "admin"],
  ["POST", "/read/ListStacks", '{"query":{"names":["no-such"]}}', "admin"],
  ["POST", "/read/GetStack", '{"stack":"no-such-stack"}', "admin"],
  ["POST", "/read/ListDeployments", "{}", "wrong"],
  ["POST", "/read/ListDeployments", "{}", "none"],
  ["POST", "/read/NoSuchEndpoint", "{}", "admin"],
  ["POST", "/nowhere", "{}", "admin"],
  ["POST", "/read/ListServers", "{not json", "admin"],
  ["GET", "/version", "", "none"],
  ["PUT", "/read/ListServers", "{}", "admin"],
]

describe("the sandbox in-process", () => {
  it.scopedLive("answers each request as it answers it over its socket, and refuses all once closed", () =>
    Effect.gen(function* () {
      const sandbox = yield* Sandboxes.scoped()
      for (const [method, path, body, who] of REQUESTS) {
        const headers: Record<string, string> = { "content-type": "application/json" }
        if (who !== "none") headers["x-api-key"] = who === "admin" ? sandbox.apiKey.key : "wrong"
        if (who !== "none") headers["x-api-secret"] = who === "admin" ? sandbox.apiKey.secret : "wrong"
        const socket = yield* Effect.promise(() =>
          fetch(`${sandbox.url}${path}`, { method, headers, ...(method === "GET" ? {} : { body }) }).then(
            async (response) => ({
              status: response.status,
              type: response.headers.get("content-type"),
              body: await response.text(),
            }),
          ),
        )
        const local = yield* Effect.promise(() => sandbox.handle({ method, url: path, headers }, body))
        // From loopback both: a wrong key in-process counts against the attempts the socket's left.
        const expected =
          who === "wrong"
            ? {
                ...socket,
                body: socket.body.replace(/You have (\d+) attempts/, (_, n) => `You have ${Number(n) - 1} attempts`),
              }
            : socket
        expect(
          { status: local.status, type: local.headers["content-type"], body: local.body },
          `${method} ${path}`,
        ).toEqual(expected)
      }
      const large = yield* Effect.promise(() =>
        sandbox.handle({ method: "POST", url: "/read/ListServers", headers: {} }, "x".repeat(4 * 1024 * 1024 + 1)),
      )
      expect(large.status).toBe(413)
      yield* Effect.promise(() => sandbox.close())
      const after = yield* Effect.promise(() =>
        sandbox.handle({ method: "POST", url: "/read/GetVersion", headers: {} }, "{}").catch((error) => error),
      )
      expect(after).toMatchObject({ code: "ECONNREFUSED" })
    }),
  )
})
