/**
 * A loopback port that was free a moment ago, for a server whose address must
 * be known before it starts (a resource URL it publishes, a redis-server's
 * command line). Port 0 is used wherever the listener can be asked afterwards.
 */
import * as Net from "node:net"

export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as Net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
