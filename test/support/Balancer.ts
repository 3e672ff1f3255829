/**
 * A round-robin balancer in front of replicas of the built server, as a team
 * runs them without affinity: each request goes to the next replica.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Servers from "./Servers.js"

/** A round-robin balancer: each request to the next replica; one that refuses the connection is skipped. */
export const proxy = (targets: () => ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let next = 0
      const forward = (req: Http.IncomingMessage, body: Buffer, res: Http.ServerResponse, tries: number): void => {
        const all = targets()
        const target = new URL(all[next++ % all.length] as string)
        const out = Http.request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
          },
        )
        out.on("error", (error: NodeJS.ErrnoException) => {
          // Nothing reached a replica that refused the connection: the next one gets the request.
          if (error.code === "ECONNREFUSED" && tries < all.length) return forward(req, body, res, tries + 1)
          if (!res.headersSent) res.writeHead(502)
          res.end()
        })
        out.end(body)
      }
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => forward(req, Buffer.concat(chunks), res, 1))
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` }
    }),
    ({ server }) => Effect.promise(() => Servers.close(server)),
  )
