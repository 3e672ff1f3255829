#!/usr/bin/env node
/**
 * The container bases (scripts/image.mjs --bases-only --compose), made in the
 * background while the rest of `npm test` runs: scripts/system-deps.mjs starts
 * this as the run begins. On a fresh machine the bases take about four minutes,
 * mostly downloads and unpacking, which the type check, the build and the other
 * lanes hide; left to the container tests, those minutes add to the run's. Where
 * the bases are there already, this ends in a second.
 *
 * It holds the lock test/support/Containers.ts takes to build the image (a
 * directory with the holder's pid), so those tests wait for the bases and then
 * find them made; a build already holding it means there is nothing to do here.
 * What image.mjs says goes to svc-mcp-bases.log in the temporary directory; a
 * failure here is met again, and reported, by the container tests' own build.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const LOCK = Path.join(Os.tmpdir(), "svc-mcp-image.lock")

try {
  Fs.mkdirSync(LOCK)
} catch {
  process.exit(0)
}
try {
  Fs.writeFileSync(Path.join(LOCK, "pid"), String(process.pid))
  const log = Fs.openSync(Path.join(Os.tmpdir(), "svc-mcp-bases.log"), "w")
  ChildProcess.spawnSync(process.execPath, [Path.join(import.meta.dirname, "image.mjs"), "--bases-only", "--compose"], {
    cwd: Path.resolve(import.meta.dirname, ".."),
    stdio: ["ignore", log, log],
    timeout: 15 * 60_000,
  })
} finally {
  Fs.rmSync(LOCK, { recursive: true, force: true })
}
