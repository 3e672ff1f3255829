/**
 * The project's sandbox as the service of a test, with quick executions.
 */
import * as Redacted from "effect/Redacted"
import type * as Config from "../../src/Config.js"
import * as Sandbox from "../../src/Sandbox/Server.js"

export const FAST = { startMs: 20, completeMs: 60 }

export const scoped = (options: Sandbox.SandboxOptions = {}) => Sandbox.make({ timing: FAST, ...options })

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
