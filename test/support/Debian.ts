/**
 * A system binary a test needs, from Debian's package: found on the PATH (or in
 * /usr/bin, /usr/sbin), else installed with apt when the tests run as root, else
 * the test fails with the one line that installs it.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const find = (binary: string): string | undefined => {
  const dirs = [...(process.env.PATH ?? "").split(Path.delimiter), "/usr/bin", "/usr/sbin", "/bin"]
  for (const dir of dirs) {
    if (dir === "") continue
    const candidate = Path.join(dir, binary)
    try {
      Fs.accessSync(candidate, Fs.constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

/** The binary's path; installs `aptPackage` first when it is missing and this process may (root with apt-get). */
export const ensureBinary = (binary: string, aptPackage: string): string => {
  const found = find(binary)
  if (found !== undefined) return found
  const install = `sudo apt-get update && sudo apt-get install -y ${aptPackage}`
  const root = process.getuid?.() === 0
  if (root && find("apt-get") !== undefined) {
    // Test files run in parallel workers: one installs, the others wait for it and look again.
    const lock = Path.join(Os.tmpdir(), `svc-mcp-apt-${aptPackage}.lock`)
    const until = Date.now() + 10 * 60_000
    for (;;) {
      try {
        Fs.mkdirSync(lock)
        break
      } catch {
        if (Date.now() > until) throw new Error(`waited too long for another test's install of ${aptPackage}`)
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500)
        const meanwhile = find(binary)
        if (meanwhile !== undefined) return meanwhile
      }
    }
    try {
      const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
      ChildProcess.execFileSync("apt-get", ["update"], { stdio: "ignore", env })
      ChildProcess.execFileSync("apt-get", ["install", "-y", aptPackage], {
        stdio: "ignore",
        env,
      })
    } catch {
      // Said below, with the line that installs it.
    } finally {
      Fs.rmSync(lock, { recursive: true, force: true })
    }
    const installed = find(binary)
    if (installed !== undefined) return installed
  }
  throw new Error(`${binary} is missing: install it with \`${install}\``)
}
