/**
 * An npm registry on 127.0.0.1 that publishes one package from its tarball, as registry.npmjs.org
 * serves a published one: the packument (the manifest of the package.json packed into it, with the
 * tarball's URL and integrity), then the tarball. Any other package is redirected to the registry npm
 * is configured with, and npm follows there with its own settings (proxy, CA, cache). So `npx -y NAME`
 * pointed at it runs the packed package exactly as it will run once published.
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Servers from "./Servers.js"

export interface Published {
  readonly url: string
  /** The paths npm asked for, in order. */
  readonly requests: ReadonlyArray<string>
}

export const publish = (tarball: string, manifest: Record<string, unknown>, upstream: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly published: Published; readonly server: Http.Server }>((resume) => {
      const bytes = Fs.readFileSync(tarball)
      const name = manifest.name as string
      const version = manifest.version as string
      const file = `/${name}/-/${name}-${version}.tgz`
      const requests: Array<string> = []
      const server = Http.createServer((req, res) => {
        const path = req.url ?? "/"
        requests.push(path)
        if (path === `/${name}`) {
          const dist = {
            tarball: `${published.url}${file}`,
            integrity: `sha512-${Crypto.createHash("sha512").update(bytes).digest("base64")}`,
            shasum: Crypto.createHash("sha1").update(bytes).digest("hex"),
          }
          res.writeHead(200, { "content-type": "application/json" })
          res.end(
            JSON.stringify({ name, "dist-tags": { latest: version }, versions: { [version]: { ...manifest, dist } } }),
          )
        } else if (path === file) {
          res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length })
          res.end(bytes)
        } else {
          res.writeHead(302, { location: new URL(path.slice(1), upstream).href })
          res.end()
        }
      })
      const published = { url: "", requests }
      server.listen(0, "127.0.0.1", () => {
        published.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        resume(Effect.succeed({ published, server }))
      })
    }),
    ({ server }) => Effect.promise(() => Servers.close(server)),
  ).pipe(Effect.map(({ published }) => published))
