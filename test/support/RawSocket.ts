/**
 * HTTP spoken by hand over a TCP socket, for what a client library would not
 * send: a POST's headers without its body, a body that never ends.
 */
import * as Net from "node:net"
import * as Effect from "effect/Effect"

interface Exchange {
  readonly text: string
  /** Whether the server closed the connection before `ms` passed. */
  readonly closed: boolean
}

/** The text a raw socket receives for `request`, until the server closes it or `ms` pass. */
export const exchange = (url: string, request: string, ms: number) =>
  Effect.promise(
    () =>
      new Promise<Exchange>((resolve) => {
        const { port } = new URL(url)
        const socket = Net.connect(Number(port), "127.0.0.1")
        let text = ""
        const timer = setTimeout(() => {
          socket.destroy()
          resolve({ text, closed: false })
        }, ms)
        socket.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8")
        })
        socket.on("error", () => {})
        socket.on("close", () => {
          clearTimeout(timer)
          resolve({ text, closed: true })
        })
        socket.write(request)
      }),
  )

/** A POST's head to `url`'s /mcp: its Host, a JSON body of `length` bytes, and `headers` between. */
export const postHead = (url: string, headers: Record<string, string>, length: number) => {
  const { host } = new URL(url)
  const lines = Object.entries({ host, "content-type": "application/json", ...headers, "content-length": length })
  return `POST /mcp HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}`).join("\r\n")}\r\n\r\n`
}
