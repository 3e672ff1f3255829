#!/usr/bin/env node
/**
 * Completes package-lock.json with the platform packages this machine's registry
 * does not serve (other operating systems' and CPUs' builds of biome, rollup...).
 * `npm install` leaves them out when it cannot fetch them, and `npm ci` then
 * refuses the lock as out of sync. Each added entry carries the os/cpu/libc that
 * its name says, so npm skips it on every other platform without fetching it.
 * Run after any `npm install` that changes the lock: `npm run lock:platforms`.
 */
import * as Fs from "node:fs"

const OS = ["android", "darwin", "linux", "win32", "freebsd", "openbsd", "openharmony", "sunos", "aix", "netbsd"]
const CPU = {
  arm64: "arm64",
  x64: "x64",
  arm: "arm",
  ia32: "ia32",
  loong64: "loong64",
  ppc64: "ppc64",
  riscv64: "riscv64",
  s390x: "s390x",
}

const platformOf = (name) => {
  const tokens = name.split("/").pop().split("-")
  const os = tokens.find((t) => OS.includes(t))
  const cpu = tokens.map((t) => CPU[t]).find(Boolean)
  if (os === undefined || cpu === undefined) return undefined
  const musl = tokens.some((t) => t.startsWith("musl"))
  const gnu = tokens.some((t) => t.startsWith("gnu"))
  return { os: [os], cpu: [cpu], ...(os === "linux" && (musl || gnu) ? { libc: [musl ? "musl" : "glibc"] } : {}) }
}

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(Fs.readFileSync(path, "utf8"))
const added = []
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `${key === "" ? "" : `${key}/`}node_modules/${name}`
    const hoisted = `node_modules/${name}`
    if (lock.packages[at] !== undefined || lock.packages[hoisted] !== undefined) continue
    const platform = platformOf(name)
    if (platform === undefined || !/^\d+\.\d+\.\d+/.test(version)) continue
    lock.packages[hoisted] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform }
    added.push(`${name}@${version}`)
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
)
Fs.writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
process.stderr.write(`lock-platforms: added ${added.length} entries${added.length ? `: ${added.join(", ")}` : ""}\n`)
