/**
 * A loopback port that was free a moment ago, for a server whose address must
 * be known before it starts (a resource URL it publishes, a redis-server's
 * command line). Port 0 is used wherever the listener can be asked afterwards.
 *
 * It is drawn below the kernel's ephemeral range: a port of that range, freed
 * to be handed on, can be taken in the meantime by any listener on port 0 or any
 * connection's own end (another test's), and the server then cannot listen on it.
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Effect from "effect/Effect"

/** The first port of the ephemeral range (Linux says; elsewhere the IANA's). */
const ephemeralFloor = (): number => {
  try {
    const [low] = Fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)
    const floor = Number(low)
    return Number.isInteger(floor) && floor > 12_000 ? floor : 49_152
  } catch {
    return 49_152
  }
}

const FIRST = 10_000

/** Whether `port` can be listened on now (it is closed again before this resolves). */
const listenable = (port: number): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const probe = Net.createServer()
    probe.once("error", () => resolve(false))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
  })

/**
 * `above`: a second port, that far above the first, must be free too and stay below the ephemeral
 * range (a Redis Cluster node's bus listens on its port + 10,000).
 */
export const freePortWith = async (above: number): Promise<number> => {
  const span = ephemeralFloor() - FIRST - above
  for (let tries = 0; tries < 50; tries++) {
    const port = FIRST + Math.floor(Math.random() * span)
    if ((await listenable(port)) && (above === 0 || (await listenable(port + above)))) return port
  }
  throw new Error(`no free port found below ${FIRST + span}`)
}

export const freePort = (): Promise<number> => freePortWith(0)

/** A loopback port nothing listens on (it did a moment ago): what a service that is down answers with. */
export const closedPort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = Http.createServer()
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    }),
)
