#!/usr/bin/env node
/**
 * The system programs `npm test` needs from Debian, before any test runs:
 * redis-server (the shared store's tests) and chromium (the fleet view's browser
 * test). Each missing one is installed with apt when this runs as root;
 * otherwise it stops with the one line that installs them. test/support/Debian.ts
 * does the same for a test file run on its own.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const NEEDED = [
  { binary: "redis-server", aptPackage: "redis-server" },
  { binary: "chromium", aptPackage: "chromium" },
]

const found = (binary) =>
  [...(process.env.PATH ?? "").split(Path.delimiter), "/usr/bin", "/usr/sbin", "/bin"].some((dir) => {
    if (dir === "") return false
    try {
      Fs.accessSync(Path.join(dir, binary), Fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

const missing = NEEDED.filter(({ binary }) => !found(binary))
if (missing.length > 0) {
  const packages = missing.map(({ aptPackage }) => aptPackage).join(" ")
  const line = `apt-get update && apt-get install -y ${packages}`
  if (process.getuid?.() === 0 && found("apt-get")) {
    console.error(`npm test: installing ${packages} (${line})`)
    const run = ChildProcess.spawnSync("sh", ["-c", line], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    })
    const still = missing.filter(({ binary }) => !found(binary))
    if (run.status !== 0 || still.length > 0) {
      console.error(
        `npm test: ${still.map((m) => m.binary).join(", ") || packages} could not be installed; run: ${line}`,
      )
      process.exit(1)
    }
  } else {
    console.error(`npm test needs ${missing.map((m) => m.binary).join(" and ")}; install with: sudo sh -c '${line}'`)
    process.exit(1)
  }
}
