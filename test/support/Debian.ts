/**
 * A system binary a test needs, from Debian's package: found on the PATH (or in
 * /usr/bin, /usr/sbin), else installed with apt when the tests run as root, else
 * the test fails with the one line that installs it.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
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
  const install = `apt-get update && apt-get install -y ${aptPackage}`
  const root = process.getuid?.() === 0
  if (root && find("apt-get") !== undefined) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    ChildProcess.execFileSync("apt-get", ["update"], { stdio: "ignore", env })
    ChildProcess.execFileSync("apt-get", ["install", "-y", "--no-install-recommends", aptPackage], {
      stdio: "ignore",
      env,
    })
    const installed = find(binary)
    if (installed !== undefined) return installed
  }
  throw new Error(`${binary} is missing: install it with \`sudo ${install}\``)
}
