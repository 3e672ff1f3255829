import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import type { SvcError } from "../../../src/Service/Errors.js"
import { suggestedUrl } from "../../../src/Service/Errors.js"
import { fromResponse, INVALID_CREDENTIALS, rejected } from "../../../src/Service/Response.js"
import * as Secrets from "../../../src/Shared/Secrets.js"
import { ToolCallError } from "../../../src/Tools/Catalog/ToolError.js"
import * as Render from "../../../src/Tools/Render.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

// One secret needs escaping in JSON, so scrubbing must happen after parsing too.
const SECRETS = ["secret-api-value-5678", 'pass"word\\of-admin', "eyJ.token-abc-123"]
const call = { group: "read", endpoint: "GetStack" }

/** Text that may carry a secret anywhere in it. */
const withSecret = FastCheck.oneof(
  FastCheck.string(),
  FastCheck.tuple(FastCheck.string(), FastCheck.constantFrom(...SECRETS), FastCheck.string()).map((parts) =>
    parts.join(""),
  ),
)

/** Bodies the service, a proxy, or a broken network may send. */
const body = FastCheck.oneof(
  withSecret,
  FastCheck.json(),
  FastCheck.record({ error: withSecret, trace: FastCheck.array(withSecret, { maxLength: 4 }) }).map((b) =>
    JSON.stringify(b),
  ),
  FastCheck.record({
    error: FastCheck.constantFrom(INVALID_CREDENTIALS, "unknown variant `GetStack`, expected one of"),
  }).map((b) => JSON.stringify(b)),
  FastCheck.constantFrom("", "<html>502 Bad Gateway</html>", '{"error": 5}', "[1,2", "null"),
)

const status = FastCheck.integer({ min: 200, max: 599 })
const method = FastCheck.constantFrom("api-key" as const, "jwt" as const)

const isJson = (text: string) => {
  try {
    JSON.parse(text)
    return text.trim() !== ""
  } catch {
    return false
  }
}

const render = (error: SvcError) =>
  Render.failure(
    new ToolCallError({
      tool: "svc_get",
      selectorKey: "resource_type",
      selector: "stack",
      endpoint: "read/GetStack",
      error,
    }),
  )

describe("error mapping, for any answer of the service", () => {
  property(
    "a 2xx with JSON is the parsed value; anything else is a tagged error, rendered isError, secret-free",
    { status, body, method },
    ({ status, body, method }) => {
      const outcome = fromResponse(call, status, body, SECRETS)
      const ok = status < 300 && isJson(body)
      if (ok) {
        const parsed = JSON.parse(body)
        if (Secrets.inJson(body, SECRETS)) {
          // Even a successful answer does not show this server's own credentials.
          const value = Secrets.scrubValue(parsed, SECRETS)
          expect(outcome).toEqual({ _tag: "Ok", value, text: JSON.stringify(value) })
          const written = JSON.stringify(value)
          expect(SECRETS.filter((secret) => written.includes(JSON.stringify(secret).slice(1, -1)))).toEqual([])
        } else {
          expect(outcome).toEqual({ _tag: "Ok", value: parsed, text: body })
        }
        return
      }
      expect(outcome._tag).not.toBe("Ok")
      if (outcome._tag === "Ok") return
      const error = outcome._tag === "Failed" ? outcome.error : rejected(call, outcome, method)
      if (status < 300) {
        expect(error._tag).toBe("SvcResponseError")
      } else if (outcome._tag === "CredentialsInvalid") {
        expect(status === 401 || (status === 500 && body.includes(INVALID_CREDENTIALS))).toBe(true)
        expect(error._tag).toBe("SvcAuthError")
      } else {
        expect(error._tag).toBe("SvcServiceError")
      }
      const rendered = render(error)
      expect(rendered.isError).toBe(true)
      expect(rendered.structured?.error).toMatchObject({
        tool: "svc_get",
        selector: "stack",
        endpoint: "read/GetStack",
      })
      expect(rendered.structured?.error.status).toBe(status)
      expect(rendered.text).toContain("svc_get")
      expect(rendered.text).toContain("read/GetStack")
      const shown = [
        rendered.text,
        ...Object.values(rendered.structured?.error ?? {})
          .flat()
          .map(String),
      ]
      // One expectation for all: a text that holds a secret is named in the failure.
      expect(shown.filter((text) => SECRETS.some((secret) => text.includes(secret)))).toEqual([])
    },
    { fastCheck: { numRuns: runs(500) } },
  )

  property(
    "every non-2xx keeps the service's error text and trace (scrubbed)",
    {
      status: FastCheck.integer({ min: 300, max: 599 }).filter((s) => s !== 401 && s !== 500),
      error: FastCheck.string({ minLength: 1 }),
      trace: FastCheck.array(FastCheck.string()),
    },
    ({ status, error, trace }) => {
      const outcome = fromResponse(call, status, JSON.stringify({ error, trace }), SECRETS)
      expect(outcome._tag).toBe("Failed")
      if (outcome._tag !== "Failed") return
      expect(outcome.error).toMatchObject({ _tag: "SvcServiceError", status, error, trace })
      const rendered = render(outcome.error)
      expect(rendered.structured?.error).toMatchObject({ kind: "service_error", status, error, trace })
    },
  )

  property(
    "scrubbing removes every occurrence of every secret and keeps the rest",
    { text: withSecret },
    ({ text }) => {
      const scrubbed = Secrets.scrub(text, SECRETS)
      expect(SECRETS.filter((secret) => scrubbed.includes(secret))).toEqual([])
      if (!SECRETS.some((secret) => text.includes(secret))) expect(scrubbed).toBe(text)
    },
  )

  it("an unknown variant names the endpoint only when it is the endpoint's own name", () => {
    const own = fromResponse(
      call,
      500,
      JSON.stringify({ error: "unknown variant `GetStack`, expected one of `A`" }),
      [],
    )
    const field = fromResponse(
      call,
      500,
      JSON.stringify({ error: "unknown variant `Xor`, expected `Or` or `And`" }),
      [],
    )
    expect(own._tag === "Failed" && own.error._tag === "SvcServiceError" && own.error.reason).toBe("UnknownEndpoint")
    expect(field._tag === "Failed" && field.error._tag === "SvcServiceError" && field.error.reason).toBe("Status")
  })

  property(
    "a redirect with a Location is reported with it, and SVC_URL is suggested as the Location minus the endpoint's path",
    {
      status: FastCheck.constantFrom(301, 302, 303, 307, 308),
      origin: FastCheck.webUrl({ withQueryParameters: false, withFragments: false }).map((u) => new URL(u).origin),
      base: FastCheck.array(FastCheck.stringMatching(/^[a-z0-9-]{1,8}$/), { maxLength: 3 }).map((parts) =>
        parts.map((p) => `/${p}`).join(""),
      ),
      body: FastCheck.oneof(FastCheck.constant(""), withSecret),
    },
    ({ status, origin, base, body }) => {
      const location = `${origin}${base}/read/GetStack`
      const outcome = fromResponse(call, status, body, SECRETS, { location })
      expect(outcome._tag).toBe("Failed")
      if (outcome._tag !== "Failed") return
      expect(outcome.error).toMatchObject({ _tag: "SvcServiceError", reason: "Redirected", status, location })
      expect(suggestedUrl(call, location)).toBe(`${origin}${base}`)
      expect(outcome.error.message).toContain(`the service redirected to ${location}; set SVC_URL to ${origin}${base} `)
      const rendered = render(outcome.error)
      expect(rendered.structured?.error).toMatchObject({ kind: "service_error", status })
      expect(rendered.text).toContain(`set SVC_URL to ${origin}${base}`)
    },
  )

  property(
    "a 429 says when to retry: its Retry-After, else the seconds its text names",
    {
      seconds: FastCheck.integer({ min: 1, max: 3600 }),
      header: FastCheck.option(FastCheck.integer({ min: 1, max: 3600 }).map(String), { nil: undefined }),
    },
    ({ seconds, header }) => {
      const body = JSON.stringify({ error: `Too many attempts | Try again in ${seconds}s`, trace: [] })
      const outcome = fromResponse(call, 429, body, SECRETS, header === undefined ? {} : { retryAfter: header })
      expect(outcome._tag).toBe("Failed")
      if (outcome._tag !== "Failed") return
      const wait = header ?? String(seconds)
      expect(outcome.error).toMatchObject({ _tag: "SvcServiceError", reason: "RateLimited", retryAfter: wait })
      expect(outcome.error.message).toMatch(new RegExp(`retry after ${wait} s$`))
      expect(render(outcome.error).structured?.error).toMatchObject({
        kind: "service_error",
        status: 429,
        retryAfter: wait,
      })
    },
  )
})
