/**
 * The image's tests: podman (rootful, Debian's, with runc), the image built once
 * for the whole run, and containers named for the file that starts them and
 * removed when it ends.
 *
 * The image and its bases are made by scripts/image.mjs, the very script behind
 * `npm run image`: the bases once (kept in podman's storage, reused by every later
 * run), the image only when what goes into it changed (its label
 * dev.svc-mcp.inputs): once per process, and under a lock, so that another run
 * at the same time waits for it and then finds the image up to date. `npm test`
 * starts the bases as it begins, holding the same lock (scripts/bases-early.mjs).
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

export const ROOT = Path.resolve(import.meta.dirname, "../..")
export const IMAGE = "svc-mcp:local"

/** How long making the bases and the image may take on a fresh machine (debootstrap, Node, apt, npm). */
export const BUILD_TIMEOUT_MS = 15 * 60_000

const LOCK = Path.join(Os.tmpdir(), "svc-mcp-image.lock")

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** `f` with the machine-wide lock held; a lock left by a process that died is taken over. */
const locked = <A>(f: () => A): A => {
  const until = Date.now() + BUILD_TIMEOUT_MS
  for (;;) {
    try {
      Fs.mkdirSync(LOCK)
      Fs.writeFileSync(Path.join(LOCK, "pid"), String(process.pid))
      break
    } catch {
      const holder = Number(Fs.readFileSync(Path.join(LOCK, "pid"), { encoding: "utf8", flag: "a+" }) || 0)
      if (holder > 0 && !alive(holder)) Fs.rmSync(LOCK, { recursive: true, force: true })
      else if (Date.now() > until) throw new Error("waited too long for another test's build of the image")
      else sleep(500)
    }
  }
  try {
    return f()
  } finally {
    Fs.rmSync(LOCK, { recursive: true, force: true })
  }
}

const node = (script: string, args: ReadonlyArray<string>) => {
  const result = ChildProcess.spawnSync(process.execPath, [Path.join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: BUILD_TIMEOUT_MS,
  })
  if (result.status !== 0) {
    throw new Error(`${script} ${args.join(" ")} failed:\n${`${result.stdout}\n${result.stderr}`.slice(-4000)}`)
  }
}

/**
 * Podman and its parts installed (or the line that installs them), the bases the
 * image and the Compose recipe name, and svc-mcp:local from the built dist/.
 */
let ensured = false
export const ensureImage = (): void => {
  if (ensured) return
  // The image holds the built bundle, as `npm test` builds it before any test runs.
  if (!Fs.existsSync(Path.join(ROOT, "dist/svc-mcp.js"))) throw new Error("dist/ is not built: run npm run build")
  node("scripts/system-deps.mjs", [])
  locked(() => node("scripts/image.mjs", ["--compose", "--no-build"]))
  ensured = true
}

export interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A command to its end, and what it printed: stdout and stderr apart, or as one in stdout (`merged`). */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { env?: NodeJS.ProcessEnv; cwd?: string; merged?: boolean },
) =>
  new Promise<Result>((resolve) => {
    const child = ChildProcess.spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: options.env ?? process.env,
      cwd: options.cwd,
    })
    const printed = { stdout: "", stderr: "" }
    child.stdout.on("data", (chunk: Buffer) => {
      printed.stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      printed[options.merged === true ? "stdout" : "stderr"] += chunk.toString("utf8")
    })
    child.on("close", (code: number | null) => resolve({ code: code ?? -1, ...printed }))
  })

/** A podman command, to its end. */
export const podmanResult = (args: ReadonlyArray<string>, options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  run("podman", args, options)

/**
 * A recipe of deploy/compose/ as shipped: its `files` copied byte for byte into a folder of their own
 * (`svc-mcp-<name>-...`), where the test writes the secrets they name beside them. The folder.
 */
export const copyRecipe = (name: string, files: ReadonlyArray<string>): string => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), `svc-mcp-${name}-`))
  for (const file of files) Fs.copyFileSync(Path.join(ROOT, "deploy/compose", file), Path.join(dir, file))
  return dir
}

/** podman-compose on `file` as `project`, run in its folder, to its end: what it printed, stdout and stderr as one. */
export const compose = (project: string, file: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  run("podman-compose", ["--project-name", project, "--file", file, ...args], {
    cwd: Path.dirname(file),
    env: { ...process.env, ...env },
    merged: true,
  })

/** The container podman-compose made for a service of `project`. */
export const composed = (project: string, service: string) => `${project}_${service}_1`

/** A podman command that must succeed: its stdout, trimmed. */
export const podman = async (args: ReadonlyArray<string>): Promise<string> => {
  const result = await podmanResult(args)
  if (result.code !== 0) throw new Error(`podman ${args.join(" ")}: exit ${result.code}\n${result.stderr}`)
  return result.stdout.trim()
}

/** A container's address on its (first) network: the host reaches it there, rootful podman's bridge. */
export const addressOf = (container: string) =>
  podman(["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", container]).then(
    (found) => found.split(" ")[0] as string,
  )

/** The host port podman published a container's port on. */
export const publishedPort = async (container: string, port: number): Promise<number> => {
  const found = await podman(["port", container, `${port}/tcp`])
  return Number(found.split("\n")[0]?.split(":").pop())
}

/**
 * Containers reach the host at host.containers.internal, on the host's own
 * address, not its loopback: this forwards connections from every address to a
 * server on 127.0.0.1 (a service double) for as long as it is open.
 */
export const forwardFromContainers = async (target: number) => {
  const sockets = new Set<Net.Socket>()
  const server = Net.createServer((inbound) => {
    const outbound = Net.connect(target, "127.0.0.1")
    for (const socket of [inbound, outbound]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => {
        inbound.destroy()
        outbound.destroy()
      })
    }
    inbound.pipe(outbound).pipe(inbound)
  })
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve))
  const port = (server.address() as Net.AddressInfo).port
  return {
    url: `http://host.containers.internal:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A name for this file's containers, pods and networks: unique to this run, found again to clean up. */
export const namer = (file: string) => {
  const prefix = `svc-mcp-test-${file}-${process.pid}`
  return (what: string) => `${prefix}-${what}`
}

/** A free port on the host (for a port a recipe publishes). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as Net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** Polls `f` until `done` holds of its value, or `ms` pass: the last value either way. */
export const eventually = async <A>(f: () => Promise<A>, done: (a: A) => boolean, ms = 30_000): Promise<A> => {
  const end = Date.now() + ms
  for (;;) {
    const value = await f().catch((error: unknown) => error as A)
    if (done(value) || Date.now() > end) return value
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** One HTTP request, read to its end; a failed connection is a status of 0. */
export const request = async (
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> => {
  try {
    const answer = await fetch(url, { ...options, signal: AbortSignal.timeout(15_000) })
    return { status: answer.status, body: await answer.text() }
  } catch {
    return { status: 0, body: "" }
  }
}
