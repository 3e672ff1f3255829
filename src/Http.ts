/**
 * One POST to the service: JSON in, status and text out, bounded by the time-out.
 * Transport failures are classified here; status codes are left to the caller.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type Call, SvcTimeoutError, SvcUnreachableError } from "./SvcError.js"

export interface RawResponse {
  readonly status: number
  readonly text: string
}

type Reason = SvcUnreachableError["reason"]

const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/

const reasonOf = (code: string): Reason | undefined => {
  if (code === "ECONNREFUSED") return "Refused"
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return "DNS"
  if (TLS_CODE.test(code)) return "TLS"
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") return "Reset"
  return undefined
}

/** fetch wraps the socket's error in `cause`, sometimes twice; the innermost code says most. */
export const classify = (error: unknown): { reason: Reason; detail: string } => {
  const details: Array<string> = []
  let reason: Reason | undefined
  let current: unknown = error
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    if (typeof current === "object") {
      const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown }
      if (typeof code === "string") reason = reasonOf(code) ?? reason
      if (typeof message === "string" && message !== "") {
        details.push(typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message)
      }
      current = cause
    } else {
      details.push(String(current))
      break
    }
  }
  return { reason: reason ?? "Network", detail: details.join(" <- ") || "the request failed" }
}

/** Sends `request`, reads the whole answer as text, within `timeoutMs`. */
export const send = (
  client: HttpClient.HttpClient,
  call: Call,
  request: HttpClientRequest.HttpClientRequest,
  timeoutMs: number,
): Effect.Effect<RawResponse, SvcTimeoutError | SvcUnreachableError> =>
  client.execute(request).pipe(
    Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text }))),
    Effect.catchAll((error) => {
      const { reason, detail } = classify(error.cause ?? error)
      return Effect.fail(new SvcUnreachableError({ call, reason, detail }))
    }),
    Effect.timeoutFail({
      duration: Duration.millis(timeoutMs),
      onTimeout: () => new SvcTimeoutError({ call, timeoutMs }),
    }),
  )

export const post = (
  client: HttpClient.HttpClient,
  call: Call,
  url: string,
  body: unknown,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Effect.Effect<RawResponse, SvcTimeoutError | SvcUnreachableError> =>
  Effect.suspend(() =>
    send(
      client,
      call,
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyText(JSON.stringify(body ?? {}), "application/json"),
      ),
      timeoutMs,
    ),
  )
