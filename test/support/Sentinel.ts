/**
 * A primary, its replica and three Redis Sentinels (Debian's redis-server, the
 * Sentinels as `redis-server <file> --sentinel`), on free loopback ports, with
 * no persistence. The primary and replica ask for a password, and so do the
 * Sentinels (another one): a client must give both. Fail-overs are quick
 * (down after 1 s), so that a test can make one, by asking or by killing.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { ensureBinary } from "./Debian.js"
import { freePort } from "./Ports.js"
import * as Redis from "./Redis.js"

export const NAME = "svc-primary"
export const DATA_PASSWORD = "data-pass-1729"
export const SENTINEL_PASSWORD = "sentinel-pass-4104"

export interface SentinelSet {
  /** The redis+sentinel:// URL of all three Sentinels, with the data nodes' password. */
  readonly url: string
  /** The primary and the replica as started: [0] is the first primary. */
  readonly servers: ReadonlyArray<Redis.RedisServer>
  readonly sentinelPorts: ReadonlyArray<number>
  /** A command to a data node, authenticated, through redis-cli; its reply as text. */
  readonly data: (port: number, ...args: ReadonlyArray<string>) => Promise<string>
  /** The port the Sentinels name as the primary now (asked of the first that answers). */
  readonly primaryPort: () => Promise<number>
  /** SENTINEL FAILOVER, then waits until the Sentinels name another primary and it answers as one. */
  readonly failover: () => Promise<number>
  /** Waits until the Sentinels name a primary other than `old`, and it answers as one. */
  readonly waitForPrimaryOtherThan: (old: number, ms?: number) => Promise<number>
  /** One more Sentinel, on `port`, watching the primary of now; stopped by the function it gives. */
  readonly addSentinel: (port: number) => Promise<() => Promise<void>>
  /** Waits until the data node on `port` answers as a replica (the Sentinels demoted it). */
  readonly waitForReplica: (port: number, ms?: number) => Promise<void>
  readonly stop: () => Promise<void>
}

const cli = (port: number, password: string, args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) => {
    ChildProcess.execFile(
      "redis-cli",
      ["-h", "127.0.0.1", "-p", String(port), "-a", password, "--no-auth-warning", ...args],
      { timeout: 5_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())),
    )
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = async <A>(what: string, probe: () => Promise<A | undefined>, ms: number): Promise<A> => {
  const end = Date.now() + ms
  let last: unknown
  while (Date.now() < end) {
    try {
      const found = await probe()
      if (found !== undefined) return found
    } catch (error) {
      last = error
    }
    await sleep(50)
  }
  throw new Error(`${what} did not happen within ${ms} ms${last === undefined ? "" : ` (${String(last)})`}`)
}

export const start = async (): Promise<SentinelSet> => {
  const binary = ensureBinary("redis-server", "redis-server")
  ensureBinary("redis-cli", "redis-tools")
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-sentinel-"))
  const servers: Array<Redis.RedisServer> = []
  const sentinels: Array<ChildProcess.ChildProcess> = []
  const sentinelPorts: Array<number> = []
  const stop = async () => {
    await Promise.all(
      sentinels.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once("exit", () => resolve())
            child.kill("SIGKILL")
          }),
      ),
    )
    await Promise.all(servers.map((server) => server.stop()))
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    const primary = await Redis.start()
    servers.push(primary)
    servers.push(await Redis.start(["--replicaof", "127.0.0.1", String(primary.port)]))
    // Passwords once both answer (redis-server's own start-up check speaks without one); the
    // replica's masterauth first, so that either can follow the other after a fail-over.
    for (const server of servers) await server.command("CONFIG", "SET", "masterauth", DATA_PASSWORD)
    for (const server of servers) await server.command("CONFIG", "SET", "requirepass", DATA_PASSWORD)
    const data = (port: number, ...args: ReadonlyArray<string>) => cli(port, DATA_PASSWORD, args)
    await until(
      "the replica's sync",
      async () =>
        (await data(servers[1]!.port, "INFO", "replication")).includes("master_link_status:up") ? true : undefined,
      // A set-up's bound, not a speed: on a loaded machine (two e2e files at once) the replica's first
      // link, refused until masterauth is set, is retried on redis' own once-a-second cron.
      30_000,
    )
    const spawnSentinel = (port: number, primaryPort: number) => {
      const file = Path.join(dir, `sentinel-${port}.conf`)
      Fs.writeFileSync(
        file,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor ${NAME} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${NAME} 1000`,
          `sentinel failover-timeout ${NAME} 5000`,
          `sentinel auth-pass ${NAME} ${DATA_PASSWORD}`,
          `requirepass ${SENTINEL_PASSWORD}`,
          `sentinel sentinel-pass ${SENTINEL_PASSWORD}`,
          "",
        ].join("\n"),
      )
      const child = ChildProcess.spawn(binary, [file, "--sentinel"], { stdio: "ignore" })
      sentinels.push(child)
      return child
    }
    for (let i = 0; i < 3; i++) {
      const port = await freePort()
      spawnSentinel(port, primary.port)
      sentinelPorts.push(port)
    }
    const sentinel = (port: number, ...args: ReadonlyArray<string>) => cli(port, SENTINEL_PASSWORD, args)
    // Ready when every Sentinel knows the replica and the two other Sentinels (which a fail-over
    // by a killed primary needs: a majority of them must vote).
    for (const port of sentinelPorts) {
      await until(
        `Sentinel ${port} knowing the replica and the others`,
        async () => {
          const replicas = await sentinel(port, "SENTINEL", "REPLICAS", NAME)
          const others = await sentinel(port, "SENTINEL", "SENTINELS", NAME)
          const known = others.split("\n").filter((line) => line === "runid").length
          return replicas.includes(String(servers[1]!.port)) && known === 2 ? true : undefined
        },
        15_000,
      )
    }
    const primaryPort = async () => {
      for (const port of sentinelPorts) {
        try {
          const [, at] = (await sentinel(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", NAME)).split("\n")
          if (at !== undefined && Number(at) > 0) return Number(at)
        } catch {
          // that Sentinel is away: ask the next
        }
      }
      throw new Error("no Sentinel names a primary")
    }
    const waitForPrimaryOtherThan = (old: number, ms = 20_000) =>
      until(
        `a fail-over away from ${old}`,
        async () => {
          const now = await primaryPort()
          if (now === old) return undefined
          return (await data(now, "ROLE")).startsWith("master") ? now : undefined
        },
        ms,
      )
    return {
      url: `redis+sentinel://:${DATA_PASSWORD}@${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(",")}/${NAME}`,
      servers,
      sentinelPorts,
      data,
      primaryPort,
      failover: async () => {
        const old = await primaryPort()
        await sentinel(sentinelPorts[0]!, "SENTINEL", "FAILOVER", NAME)
        return waitForPrimaryOtherThan(old)
      },
      waitForPrimaryOtherThan,
      addSentinel: async (port) => {
        const child = spawnSentinel(port, await primaryPort())
        await until(
          `Sentinel ${port} answering`,
          async () => ((await sentinel(port, "PING")) === "PONG" ? true : undefined),
          10_000,
        )
        return () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once("exit", () => resolve())
            child.kill("SIGKILL")
          })
      },
      waitForReplica: (port, ms = 20_000) =>
        until(
          `${port} answering as a replica`,
          async () => ((await data(port, "ROLE")).startsWith("slave") ? true : undefined),
          ms,
        ).then(() => undefined),
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
