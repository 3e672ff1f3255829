/**
 * A real redis-server (Debian's), on a free loopback port, with no persistence:
 * killed, it comes back empty, as a store that lost its data does.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { ensureBinary } from "./Debian.js"
import { freePortWith } from "./Ports.js"

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** SIGKILL: the store is gone, with everything it held. */
  readonly kill: () => Promise<void>
  /** Started again on the same port, empty. */
  readonly restart: () => Promise<void>
  readonly stop: () => Promise<void>
  /** SIGSTOP: the store stalls, its connections open and answering nothing, until `resume`. */
  readonly pause: () => void
  /** SIGCONT: a paused store answers again, with everything it held. */
  readonly resume: () => void
  /** Runs redis-cli-like single commands through a raw connection (for the tests' own look at the store). */
  readonly command: (...args: ReadonlyArray<string>) => Promise<string>
}

/** One command over RESP, the reply as text (an integer or bulk string), or the error's text. */
const send = (port: number, args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) => {
    const socket = Net.connect(port, "127.0.0.1")
    let data = ""
    socket.setEncoding("utf8")
    socket.once("error", reject)
    socket.on("data", (chunk: string) => {
      data += chunk
      const line = data.indexOf("\r\n")
      if (line < 0) return
      const head = data.slice(0, line)
      if (head.startsWith("$")) {
        const length = Number(head.slice(1))
        if (length < 0) return done("(nil)")
        if (data.length < line + 2 + length + 2) return
        return done(data.slice(line + 2, line + 2 + length))
      }
      done(head.slice(1))
    })
    const done = (reply: string) => {
      socket.end()
      resolve(reply)
    }
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`)
  })

const waitUp = async (port: number, child: ChildProcess.ChildProcess, log: () => string) => {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${log()}`)
    try {
      // A store with a password (--requirepass) answers NOAUTH: it is up all the same.
      const reply = await send(port, ["PING"])
      if (reply === "PONG" || reply.startsWith("NOAUTH")) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`redis-server did not answer on port ${port}: ${log()}`)
}

export const start = async (extra: ReadonlyArray<string> = []): Promise<RedisServer> => {
  const binary = ensureBinary("redis-server", "redis-server")
  // A cluster node's bus listens on its port + 10,000: both drawn below the ephemeral range.
  const port = await freePortWith(extra.includes("--cluster-enabled") ? 10_000 : 0)
  let child: ChildProcess.ChildProcess | undefined
  let log = ""
  const launch = async () => {
    log = ""
    const started = ChildProcess.spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", "/tmp", ...extra],
      { stdio: ["ignore", "pipe", "pipe"] },
    )
    started.stdout?.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8")
    })
    started.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8")
    })
    child = started
    await waitUp(port, started, () => log)
  }
  const kill = () =>
    new Promise<void>((resolve) => {
      const running = child
      child = undefined
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return resolve()
      running.once("exit", () => resolve())
      running.kill("SIGKILL")
    })
  await launch()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: launch,
    stop: async () => {
      child?.kill("SIGCONT")
      await kill()
    },
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
    command: (...args) => send(port, args),
  }
}

export interface RedisCluster {
  /** One node's URL: the client finds the others from it. */
  readonly url: string
  readonly nodes: ReadonlyArray<RedisServer>
  readonly stop: () => Promise<void>
}

/** Three redis-server masters as one Redis Cluster (no replicas), its slots spread by redis-cli. */
export const startCluster = async (): Promise<RedisCluster> => {
  ensureBinary("redis-cli", "redis-tools")
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-cluster-"))
  const nodes: Array<RedisServer> = []
  for (let i = 0; i < 3; i++) {
    nodes.push(await start(["--cluster-enabled", "yes", "--cluster-config-file", Path.join(dir, `nodes-${i}.conf`)]))
  }
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()))
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    ChildProcess.execFileSync(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      { stdio: "ignore" },
    )
    for (let i = 0; i < 200; i++) {
      const states = await Promise.all(nodes.map((node) => node.command("CLUSTER", "INFO")))
      if (states.every((info) => info.includes("cluster_state:ok"))) return { url: nodes[0]!.url, nodes, stop }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error("the cluster did not become ok")
  } catch (error) {
    await stop()
    throw error
  }
}

/** A redis-server for the scope: started at its start, stopped at its close. */
export const scoped = (extra: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.promise(() => start(extra)),
    (redis) => Effect.promise(() => redis.stop()),
  )
