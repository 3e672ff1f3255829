/**
 * A system binary the tests need from Debian (chromium, redis-server...):
 * found on the PATH, else installed with apt when the tests run as root, else
 * a failure that says the one line that installs it. So that `npm ci && npm
 * test` passes on a fresh machine.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const found = (binary: string): string | undefined => {
  const dirs = (process.env.PATH ?? "").split(Path.delimiter).concat(["/usr/bin", "/usr/sbin", "/bin", "/sbin"])
  for (const dir of dirs) {
    if (dir === "") continue
    const candidate = Path.join(dir, binary)
    try {
      Fs.accessSync(candidate, Fs.constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/** The path of `binary`, installing Debian's `aptPackage` first if it is missing and the tests may. */
export const ensureBinary = async (binary: string, aptPackage: string): Promise<string> => {
  const present = found(binary)
  if (present !== undefined) return present
  const line = `apt-get update && apt-get install -y ${aptPackage}`
  const root = process.getuid?.() === 0
  if (!root || found("apt-get") === undefined) {
    throw new Error(`${binary} is missing; install it with: ${root ? "" : "sudo sh -c '"}${line}${root ? "" : "'"}`)
  }
  const installed = ChildProcess.spawnSync("sh", ["-c", line], {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  })
  const after = found(binary)
  if (installed.status !== 0 || after === undefined) {
    throw new Error(`${binary} is missing and "${line}" failed: ${installed.stderr.trim().split("\n").at(-1) ?? ""}`)
  }
  return after
}
