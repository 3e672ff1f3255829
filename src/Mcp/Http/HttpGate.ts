/**
 * What a request is refused on before anything of its body is read (Http.ts):
 * a Host that names no host, a missing or wrong token, per-request credentials
 * that are not there. Each refusal closes the connection, so that a body still
 * coming is never read. And what `/readyz` shows to whom.
 */
import type * as NodeHttp from "node:http"
import type { ReadyState } from "../../Operations/Readiness.js"
import { sendJson, sendText } from "./HttpServer.js"

/**
 * A Host header as RFC 9110 has it: a name, an IPv4 address or a bracketed IPv6 one, and a
 * port. Anything else (`evil.com@127.0.0.1`, a path, spaces) makes no URL the handler can read.
 */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{0,5})?$/
const HOST_CHARS_NO_USERINFO = /[@]/

export const validHost = (host: string | undefined): boolean =>
  host !== undefined && host.length <= 255 && HOST.test(host) && !HOST_CHARS_NO_USERINFO.test(host)

/**
 * A request's Host, as its HTTP version has it: HTTP/1.0 may send none (a load balancer's health
 * check does: HAProxy's `option httpchk`), while HTTP/1.1 must (Node refuses it without one). A
 * Host that is there must name a host.
 */
export const hostAcceptable = (req: Pick<NodeHttp.IncomingMessage, "headers" | "httpVersion">): boolean =>
  req.headers.host === undefined ? req.httpVersion === "1.0" : validHost(req.headers.host)

/** A refusal answered at once, the connection closed after it: the request's body is never read. */
export const refuseNow = (
  res: NodeHttp.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => sendJson(res, status, body, { connection: "close", ...headers })

/** A Fetch Response (the SDK's Bearer challenge) answered at once, the connection closed after it. */
export const respondNow = async (res: NodeHttp.ServerResponse, response: Response): Promise<void> => {
  const text = await response.text()
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  sendText(res, response.status, text, { ...headers, connection: "close" })
}

/**
 * `/readyz` without the token: whether it is ready, and which step is not, but no address of the
 * service or of the store (a probe needs the status alone; `svc-mcp check` and the token show the
 * rest: with sign-in, an access token with the broadest scope).
 */
export const withoutAddresses = (state: ReadyState, signIn = false): Record<string, unknown> => ({
  ready: state.ready,
  ...(state.reason === undefined
    ? {}
    : {
        reason: `${state.reason.split(":")[0]}: not ready (the details are shown ${signIn ? "to an access token with svc.write" : "with the token"})`,
      }),
  ...(state.store === undefined ? {} : { store: { status: state.store.status } }),
})
