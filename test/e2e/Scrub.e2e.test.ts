/**
 * The built server over stdio, against a service that echoes this server's
 * API secret JSON-escaped (and in other forms): no form of it reaches the
 * answer's text or its structuredContent.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layers from "../support/Layers.js"
import * as Double from "../support/ServiceDouble.js"
import * as Spawn from "../support/Spawn.js"

const keyEnv = (url: string) => ({ SVC_URL: url, SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET })

const escapeAll = (text: string) =>
  Array.from(text, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")

/** Every form the checks look for: as it is in any case, and its base64 (the whole of it, as echoed). */
const leaks = (text: string) =>
  text.toLowerCase().includes(Layers.SECRET.toLowerCase()) ||
  text.includes(Buffer.from(Layers.SECRET).toString("base64").slice(0, 24)) ||
  text.includes(escapeAll(Layers.SECRET).slice(0, 30))

describe("scrubbing through encodings, end to end", () => {
  it.scopedLive("the API secret echoed as \\u-escaped JSON is in neither the text nor structuredContent", () =>
    Effect.gen(function* () {
      const double = yield* Double.scoped(Layers.API_KEY)
      const raw = `{"name":"web","config":{"environment":"TOKEN=${escapeAll(Layers.SECRET)}","upper":"${Layers.SECRET.toUpperCase()}","b64":"${Buffer.from(`k:${Layers.SECRET}`).toString("base64")}","url":"${encodeURIComponent(`x=${Layers.SECRET}`)}"}}`
      double.next("/read/GetStack", { status: 200, raw })
      const { client } = yield* Spawn.connect(keyEnv(double.url))
      const result = yield* Effect.promise(() =>
        client.callTool({
          name: "svc_get",
          arguments: { resource_type: "stack", params: { stack: "web" }, fields: ["*"] },
        }),
      )
      expect(result.isError).toBeFalsy()
      const texts = (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? "").join("\n")
      expect(texts).toContain("[redacted]")
      expect(leaks(texts)).toBe(false)
      expect(result.structuredContent).toBeDefined()
      const structured = JSON.stringify(result.structuredContent)
      expect(structured).toContain("[redacted]")
      expect(leaks(structured)).toBe(false)
      // The rest of the answer is intact.
      expect(texts).toContain("web")
      expect(double.requests.some((request) => request.path === "/read/GetStack")).toBe(true)
    }),
  )
})
