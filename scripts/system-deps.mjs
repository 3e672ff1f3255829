#!/usr/bin/env node
/**
 * The system programs `npm test` needs from Debian, before any test runs:
 * redis-server (the shared store's tests), chromium (the fleet view's browser
 * test), and podman with its parts (the image's tests: runc, netavark, iptables,
 * debootstrap for the stand-in bases, podman-compose for the Compose recipe).
 * Each missing one is installed with apt when this runs as root; otherwise it
 * stops with the one line that installs them. test/support/Debian.ts does the same
 * for a test file run on its own; test/support/Containers.ts runs this script.
 *
 * Podman then gets the settings this kind of machine needs, in
 * /etc/containers/containers.conf when there is none: runc (crun refuses hybrid
 * cgroups), no default ulimits (podman's open-files limit exceeds the machine's
 * hard limit and the container fails to start), netavark's bridge networking.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const NEEDED = [
  { binary: "redis-server", aptPackage: "redis-server" },
  { binary: "chromium", aptPackage: "chromium" },
  { binary: "podman", aptPackage: "podman" },
  { binary: "runc", aptPackage: "runc" },
  { binary: "/usr/lib/podman/netavark", aptPackage: "netavark" },
  { binary: "iptables", aptPackage: "iptables" },
  { binary: "debootstrap", aptPackage: "debootstrap" },
  { binary: "podman-compose", aptPackage: "podman-compose" },
]

const CONTAINERS_CONF = "/etc/containers/containers.conf"
const PODMAN_SETTINGS = `# svc-mcp's tests (scripts/system-deps.mjs): podman on a kernel with hybrid cgroups and a low open-files limit.
[containers]
default_ulimits = []

[engine]
runtime = "runc"

[network]
network_backend = "netavark"
`

const found = (binary) =>
  Path.isAbsolute(binary)
    ? Fs.existsSync(binary)
    : [...(process.env.PATH ?? "").split(Path.delimiter), "/usr/bin", "/usr/sbin", "/bin"].some((dir) => {
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

if (!Fs.existsSync(CONTAINERS_CONF)) {
  if (process.getuid?.() === 0) {
    Fs.mkdirSync(Path.dirname(CONTAINERS_CONF), { recursive: true })
    Fs.writeFileSync(CONTAINERS_CONF, PODMAN_SETTINGS)
    console.error(`npm test: wrote ${CONTAINERS_CONF} (runc, no default ulimits, netavark)`)
  } else {
    console.error(`npm test: podman needs ${CONTAINERS_CONF} with these settings (as root):\n${PODMAN_SETTINGS}`)
    process.exit(1)
  }
}

// As `npm test` begins (not when a container test runs this), the container bases
// start in the background: scripts/bases-early.mjs.
if (process.env.npm_lifecycle_event === "pretest") {
  ChildProcess.spawn(process.execPath, [Path.join(import.meta.dirname, "bases-early.mjs")], {
    detached: true,
    stdio: "ignore",
  }).unref()
}
