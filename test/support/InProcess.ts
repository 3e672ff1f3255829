/**
 * The tests' sandboxes reached without a socket: the service's client made for a sandbox's URL
 * (Layers.client) sends each request to the sandbox's `handle`, which answers it as it answers
 * one from loopback over its socket; the client's transport reads the answer as it reads any.
 * What a socket adds (undici's connections, time-outs and caps, the sandbox's wire) is held by the
 * tests that speak to it over one: test/unit/Service, SandboxClients, and the e2e lane.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Sandbox from "../../src/Sandbox/Server.js"

/** The open sandboxes of this thread, by origin. */
const open = new Map<string, Sandbox.Sandbox["handle"]>()

/** `sandbox` reached in-process until its scope closes; after, as over a socket, refused. */
export const register = (sandbox: Sandbox.Sandbox): Effect.Effect<void> =>
  Effect.sync(() => {
    open.set(new URL(sandbox.url).origin, sandbox.handle)
  })

export const unregister = (sandbox: Sandbox.Sandbox): Effect.Effect<void> =>
  Effect.sync(() => {
    open.delete(new URL(sandbox.url).origin)
  })

const decoder = new TextDecoder()

/** Where no sandbox is open (any more), refused as a closed port refuses a request. */
const refused = (url: URL) => Object.assign(new Error(`connect ECONNREFUSED ${url.host}`), { code: "ECONNREFUSED" })

const client = HttpClient.make((request, url) => {
  const handle = open.get(url.origin)
  const body = request.body._tag === "Uint8Array" ? decoder.decode(request.body.body) : ""
  return Effect.tryPromise({
    try: () =>
      handle === undefined
        ? Promise.reject(refused(url))
        : handle({ method: request.method, url: `${url.pathname}${url.search}`, headers: request.headers }, body),
    catch: (cause) => new HttpClientError.RequestError({ request, reason: "Transport", cause }),
  }).pipe(Effect.map((answer) => HttpClientResponse.fromWeb(request, new Response(answer.body, answer))))
})

/** The HttpClient for a service at `url`: in-process where a sandbox of this thread is open there. */
export const layerFor = (url: string): Layer.Layer<HttpClient.HttpClient> | undefined => {
  let origin: string
  try {
    origin = new URL(url).origin
  } catch {
    return undefined
  }
  return open.has(origin) ? Layer.succeed(HttpClient.HttpClient, client) : undefined
}
