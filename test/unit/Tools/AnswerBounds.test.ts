import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { mayHoldSecrets, redact, withinBudget } from "../../../src/Tools/Bounds/AnswerBounds.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

/** JSON values whose keys are often credential-like. */
const key = FastCheck.oneof(
  FastCheck.string(),
  FastCheck.constantFrom(
    "token",
    "api_secret",
    "password",
    "webhook_secret",
    "private_key",
    "jwt",
    "JoinTokens",
    "Worker",
    "is_secret",
    "value",
    "name",
    "__proto__",
    "constructor",
  ),
)
const value = FastCheck.letrec((tie) => ({
  json: FastCheck.oneof(
    { depthSize: "small" },
    FastCheck.string(),
    FastCheck.boolean(),
    FastCheck.integer(),
    FastCheck.constant(null),
    FastCheck.array(tie("json"), { maxLength: 4 }),
    FastCheck.dictionary(key, tie("json"), { maxKeys: 4 }),
  ),
})).json

describe("output", () => {
  property(
    "the quick scan never lets through what redaction would change",
    { v: value },
    ({ v }) => {
      const text = JSON.stringify(v)
      if (!mayHoldSecrets(text)) expect(redact(v)).toEqual(v)
    },
    { fastCheck: { numRuns: runs(750) } },
  )

  it("keeps a field named __proto__ as a field, and redacts inside it", () => {
    const v = JSON.parse('{"__proto__":{"token":"t","name":"n"},"constructor":1}')
    const out = redact(v) as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(JSON.stringify(out)).toBe('{"__proto__":{"token":"[redacted]","name":"n"},"constructor":1}')
  })

  it("redacts a server's and a URL builder's passkey, which their agent is reached with", () => {
    const builder = { name: "remote", config: { type: "Url", params: { address: "https://b:8120", passkey: "pk-1" } } }
    const server = { name: "prod-01", config: { address: "https://s:8120", passkey: "pk-2", region: "eu" } }
    for (const record of [builder, server]) expect(mayHoldSecrets(JSON.stringify(record))).toBe(true)
    expect(redact(builder)).toEqual({
      name: "remote",
      config: { type: "Url", params: { address: "https://b:8120", passkey: "[redacted]" } },
    })
    expect(redact(server)).toEqual({
      name: "prod-01",
      config: { address: "https://s:8120", passkey: "[redacted]", region: "eu" },
    })
  })

  it("redacts a swarm's CA key, and keeps its certificate", () => {
    const ca = {
      CAConfig: { SigningCACert: "-----BEGIN CERTIFICATE-----", SigningCAKey: "-----BEGIN EC PRIVATE KEY-----" },
    }
    expect(mayHoldSecrets(JSON.stringify(ca))).toBe(true)
    expect(redact(ca)).toEqual({
      CAConfig: { SigningCACert: "-----BEGIN CERTIFICATE-----", SigningCAKey: "[redacted]" },
    })
  })

  it("redacts a swarm's join tokens, a record of credentials, and keeps what is beside them", () => {
    const worker = "SWMTKN-1-3pu6hszjas19xyp7ghgosyx9k8atbfcr8p2is99znpy26u2lkl-1awxwuwd3z9j1z3puu7rcgdbx"
    const swarm = {
      ID: "abc",
      JoinTokens: { Worker: worker, Manager: worker.replace("1awx", "7p73"), Version: { Index: 3 } },
      Spec: { Name: "edge-swarm" },
    }
    expect(mayHoldSecrets(JSON.stringify(swarm))).toBe(true)
    expect(redact(swarm)).toEqual({
      ID: "abc",
      JoinTokens: { Worker: "[redacted]", Manager: "[redacted]", Version: { Index: 3 } },
      Spec: { Name: "edge-swarm" },
    })
  })

  it("redacts credential fields and secret variables, and nothing else", () => {
    expect(
      redact({
        name: "x",
        token: "t0k3n",
        nested: [{ webhook_secret: "s" }, { password: "" }],
        variable: { name: "DB", value: "v", is_secret: true },
        public: { name: "LOG", value: "info", is_secret: false },
        secrets: ["NAME_ONLY"],
      }),
    ).toEqual({
      name: "x",
      token: "[redacted]",
      nested: [{ webhook_secret: "[redacted]" }, { password: "" }],
      variable: { name: "DB", value: "[redacted]", is_secret: true },
      public: { name: "LOG", value: "info", is_secret: false },
      secrets: ["NAME_ONLY"],
    })
  })

  property(
    "a cut list is valid JSON of a prefix of the items, within the budget",
    {
      items: FastCheck.array(FastCheck.jsonValue(), { maxLength: 200 }),
      max: FastCheck.integer({ min: 400, max: 4000 }),
    },
    ({ items, max }) => {
      const text = JSON.stringify(items)
      const out = withinBudget(items, text, max, "ask for less")
      expect(out.length).toBeLessThanOrEqual(Math.max(max, text.length <= max ? text.length : 0))
      if (text.length <= max) {
        expect(out).toBe(text)
      } else {
        const [json] = out.split("\n[svc-mcp: ")
        const shown = JSON.parse(json ?? "")
        // As JSON has them: a -0 among the items is written 0.
        expect(shown).toEqual(JSON.parse(JSON.stringify(items.slice(0, shown.length))))
      }
    },
  )

  property(
    "a cut text never splits a character and stays within the budget",
    {
      s: FastCheck.string({ unit: "grapheme", maxLength: 3000 }),
      max: FastCheck.integer({ min: 400, max: 2000 }),
    },
    ({ s, max }) => {
      const text = JSON.stringify({ s })
      const out = withinBudget({ s }, text, max, "ask for less")
      expect(out.length).toBeLessThanOrEqual(Math.max(max, text.length))
      if (text.length > max) expect(out.length).toBeLessThanOrEqual(max)
      expect(/[\uD800-\uDBFF]$/.test(out.split("\n[svc-mcp: ")[0] ?? "")).toBe(false)
    },
  )
})
