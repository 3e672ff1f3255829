#!/usr/bin/env node
/**
 * `npm run pictures`: takes the fleet view's pictures the docs show (docs/fleet-light.png,
 * fleet-dark.png, fleet-incident.png) as its browser test sees the view, on the sandbox: it runs
 * that test (test/e2e/FleetView.e2e.test.ts) with docs/ as the place for its screenshots. Builds
 * first, as the test starts the built server. The test alone writes them to a directory of its own.
 */
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "..")
const run = (command, args, env = {}) => {
  const done = ChildProcess.spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, ...env } })
  if (done.status !== 0) process.exit(done.status ?? 1)
}

run("npm", ["run", "build", "--silent"])
run("npx", ["vitest", "run", "--project", "e2e", "test/e2e/FleetView.e2e.test.ts"], {
  SVC_MCP_PICTURES_DIR: Path.join(ROOT, "docs"),
})
process.stderr.write("docs/fleet-light.png, docs/fleet-dark.png and docs/fleet-incident.png taken\n")
