/**
 * The invocations, options and environment setup's tests give it, in the unit lane (the clients
 * configured by a file) and the integration lane (the commands, read back through a real shell).
 */
import * as Setup from "../../src/Cli/Setup.js"

export const INSTALLED: Setup.Invocation = { command: "/opt/node/bin/svc-mcp", args: [], script: false }
export const SCRIPT: Setup.Invocation = {
  command: "/opt/node/bin/node",
  args: ["/home/me/svc mcp/dist/svc-mcp.js"],
  script: true,
}

export const options = (client: Setup.Client, more: Partial<Setup.Options> = {}): Setup.Options => ({
  client,
  sandbox: false,
  http: undefined,
  ...more,
})

export const FILES: Setup.Environment = {
  ...Setup.emptyEnvironment,
  url: "https://svc.internal:8443/base",
  apiKeyFile: "/run/secrets/svc key",
  apiSecretFile: "/run/secrets/svc-secret",
  policy: [["SVC_MODE", "read-only"]],
}

/** FILES as the variables a client's configuration sets. */
export const FILES_ENV = {
  SVC_URL: "https://svc.internal:8443/base",
  SVC_API_KEY_FILE: "/run/secrets/svc key",
  SVC_API_SECRET_FILE: "/run/secrets/svc-secret",
  SVC_MODE: "read-only",
}
