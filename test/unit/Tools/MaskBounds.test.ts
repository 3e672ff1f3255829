/**
 * Masking and fencing in linear time: each credential shape, the fence's
 * neutralising and the budget's quick scan fed their worst case at 1 MB, and
 * adversarial strings a property makes; and the scanners find exactly what the
 * patterns they replace found (those patterns, quadratic on long runs, are
 * kept here as the reference, on short texts only).
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { mayHoldSecrets } from "../../../src/Tools/Bounds/AnswerBounds.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"
import { fence, token } from "../../../src/Untrusted/Fence.js"
import { mask, SHAPES } from "../../../src/Untrusted/Mask.js"
import type { Made as ToolSuccess } from "../../support/Answers.js"
import { success } from "../../support/Answers.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"

/** The patterns before the scanners, exactly: the reference for what masking finds. */
const REFERENCE: ReadonlyArray<readonly [string, RegExp, number]> = [
  [
    "private key",
    /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|$)/g,
    0,
  ],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, 0],
  ["aws access key", /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g, 0],
  ["github token", /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, 0],
  ["gitlab token", /\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,255}/g, 0],
  ["slack token", /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g, 0],
  ["google api key", /\bAIza[0-9A-Za-z_-]{35}/g, 0],
  ["stripe key", /\b(?:sk|rk)_live_[0-9a-zA-Z]{24,255}/g, 0],
  ["npm token", /\bnpm_[A-Za-z0-9]{36}\b/g, 0],
  ["azure storage key", /\b(AccountKey=)([A-Za-z0-9+/]{40,}={0,2})/g, 1],
  [
    "password",
    /(\s--?[A-Za-z0-9_-]*(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key)[A-Za-z0-9_-]*)(\s+|=)((?!\[masked: )[^\s"',;&-][^\s"',;&]{0,511})/gi,
    2,
  ],
  [
    "password",
    /((?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_.-]*["']?)(\s*[=:]\s*|\s+(?=["']))("[^"\n]{1,512}"|'[^'\n]{1,512}'|(?!\[masked: )[^\s"',;&]{1,512})/gi,
    2,
  ],
]

const reference = (text: string): string =>
  REFERENCE.reduce(
    (out, [kind, pattern, keep]) =>
      out.replace(pattern, (...groups: Array<string>) => `${groups.slice(1, keep + 1).join("")}[masked: ${kind}]`),
    text,
  )

/** Pieces that begin, almost make and break each shape: what an adversary strings together. */
const PIECES = [
  "eyJ",
  "eyJ-",
  "eyJabcdefgh",
  "abcdefgh",
  ".",
  "-",
  "_",
  "a",
  "Z9",
  " ",
  "  ",
  "\n",
  "\t",
  "\u00a0",
  "=",
  ":",
  '"',
  "'",
  ",",
  ";",
  "&",
  "+/",
  "token",
  "TOKEN",
  "password",
  "passwd",
  "Secret",
  "api_key",
  "api-key",
  "credentials",
  "private_key",
  " -",
  " --",
  " --token",
  "[masked: ",
  "[MASKED: x]",
  "-----BEGIN",
  "-----BEGIN RSA PRIVATE KEY-----",
  "-----END RSA PRIVATE KEY-----",
  " PRIVATE KEY",
  "AKIA",
  "ABCDEFGHIJKLMNOP",
  "ghp_",
  "github_pat_",
  "glpat-",
  "xoxb-",
  "AIza",
  "sk_live_",
  "npm_",
  "AccountKey=",
  "é",
  "İ",
  "\u212a",
]

const piece = FastCheck.constantFrom(...PIECES)

/** A text of pieces, with now and then a run of one piece, as an adversary would repeat it. */
const adversarial = FastCheck.array(
  FastCheck.oneof(
    { weight: 4, arbitrary: piece },
    {
      weight: 1,
      arbitrary: FastCheck.tuple(piece, FastCheck.integer({ min: 2, max: 12 })).map(([p, n]) => p.repeat(n)),
    },
  ),
  { maxLength: 60 },
).map((parts) => parts.join(""))

describe("masking finds what its patterns found", () => {
  it("on the shapes' own examples", () => {
    const examples = [
      "key eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c end",
      "login --password hunter2 -token=abc --api-key  xyz -x -secret -y",
      `DB_PASSWORD: "hunter 2" api_key='k k' token=abc,secret: [masked: x] PASSWORD = v`,
      "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- and -----BEGIN PRIVATE KEY-----\ncut",
      `AKIAABCDEFGHIJKLMNOP ghp_${"a".repeat(36)} AccountKey=${"b".repeat(44)}==`,
    ]
    for (const text of examples) expect(mask(text), text).toBe(reference(text))
  })

  property(
    "on adversarial strings: the same text, masked the same",
    { text: adversarial },
    ({ text }) => {
      expect(mask(text)).toBe(reference(text))
    },
    { fastCheck: { numRuns: runs(2000) } },
  )

  property(
    "on any text",
    { text: FastCheck.string({ unit: "binary", maxLength: 200 }) },
    ({ text }) => {
      expect(mask(text)).toBe(reference(text))
    },
    { fastCheck: { numRuns: runs(500) } },
  )
})

const MB = 1 << 20

/** `unit` repeated to 1 MB. */
const filled = (unit: string, head = "", tail = "") =>
  `${head}${unit.repeat(Math.ceil((MB - head.length - tail.length) / unit.length))}${tail}`

/**
 * The worst case of each shape: a long run its starts repeat in, a start whose header holds and
 * whose end never comes, a key whose separator never comes. A quadratic scan takes minutes at
 * this size; a linear one, milliseconds. The bound is far from both, so that a loaded machine
 * does not fail it.
 */
const WORST: Readonly<Record<string, ReadonlyArray<string>>> = {
  "private key": [
    filled("-----BEGIN "),
    filled("-----BEGIN" + " ".repeat(40)),
    filled("-----END RSA PRIVATE KE", "-----BEGIN RSA PRIVATE KEY-----"),
  ],
  jwt: [filled("eyJ-"), filled("a", "eyJ"), filled("eyJabcdefgh."), filled("eyJabcdefgh.eyJabcdefgh-")],
  "aws access key": [filled("AKIA"), filled("AKIAABCDEFGHIJKLMNO ")],
  "github token": [filled("ghp_"), filled("a", "ghp_"), filled(`.github_pat_${"a".repeat(256)}`)],
  "gitlab token": [filled("glpat-"), filled("glpat-abc ")],
  "slack token": [filled("xoxb-"), filled("xoxb-abc ")],
  "google api key": [filled("AIza"), filled("AIza-")],
  "stripe key": [filled("sk_live_"), filled("sk_live_abc ")],
  "npm token": [filled("npm_"), filled("a", "npm_")],
  "azure storage key": [filled("AccountKey="), filled("a", "AccountKey=")],
  password: [
    filled("token"),
    filled("token", " --"),
    filled(" -token"),
    filled(" --token "),
    filled("tokentoken."),
    filled("password: "),
    filled('password="'),
    filled("a", 'password="'),
    filled(" ", "password"),
    filled("password=[masked: "),
    filled("secret "),
  ],
}

/** Generous: a linear pass over 1 MB takes well under a second, a few on a 2-core machine loaded twentyfold. */
const BOUND_MS = 8_000
/** The time a test of several such passes may take. */
const LONG = 120_000

const timed = (run: () => unknown) => {
  const start = performance.now()
  run()
  return performance.now() - start
}

describe("masking and fencing take linear time", () => {
  it("names a worst case for every shape", () => {
    expect(new Set(SHAPES.map((shape) => shape.kind))).toEqual(new Set(Object.keys(WORST)))
  })

  for (const [kind, inputs] of Object.entries(WORST)) {
    it(
      `masks the worst cases of ${kind} at 1 MB within ${BOUND_MS} ms`,
      () => {
        for (const input of inputs) {
          expect(input.length).toBeGreaterThanOrEqual(MB)
          const ms = timed(() => mask(input))
          expect(ms, JSON.stringify(input.slice(0, 40))).toBeLessThan(BOUND_MS)
        }
      },
      LONG,
    )
  }

  it(
    `fences 1 MB of would-be markers within ${BOUND_MS} ms`,
    () => {
      const id = token()
      for (const input of [
        filled("<untrusted"),
        filled("<u:"),
        filled("&lt;/u>"),
        filled("&lt;/untrusted id="),
        filled("\\u003c\u0435"),
        filled(id.slice(0, 8)),
        filled("＜\u200b"),
      ]) {
        const ms = timed(() => fence(input, id))
        expect(ms, JSON.stringify(input.slice(0, 20))).toBeLessThan(BOUND_MS)
      }
    },
    LONG,
  )

  it(
    `scans 1 MB of credential-named keys for redaction within ${BOUND_MS} ms`,
    () => {
      for (const input of [filled("token", '"'), filled('"token'), filled("secret", '{"', '"')]) {
        const ms = timed(() => mayHoldSecrets(input))
        expect(ms, JSON.stringify(input.slice(0, 20))).toBeLessThan(BOUND_MS)
      }
    },
    LONG,
  )

  property(
    "masks and fences adversarial strings, repeated to 128 KB, within the bound",
    { unit: adversarial.filter((text) => text.length > 0) },
    ({ unit }) => {
      const input = unit.repeat(Math.ceil((128 * 1024) / unit.length))
      const ms = timed(() => fence(mask(input), token()))
      expect(ms).toBeLessThan(BOUND_MS)
    },
    { fastCheck: { numRuns: runs(20) }, timeout: LONG },
  )
})

const logAnswer = (stdout: string): ToolSuccess => {
  const data = { stage: "Get Log", command: "docker compose logs", stdout, stderr: "", success: true }
  return {
    tool: "svc_logs",
    wait: false,
    schema: false,
    selectorKey: "resource_type",
    selector: "stack",
    endpoint: "read/GetStackLog",
    body: { stack: "web" },
    data,
    text: JSON.stringify(data),
  }
}

describe("the cap before masking", () => {
  const settings = { maxOutputChars: 50_000, revealSecrets: false }

  it("cuts an answer's untrusted text to four times the budget before masking, and says so", () => {
    const stdout = "eyJ-".repeat(300_000)
    let rendered: ReturnType<typeof success> | undefined
    const ms = timed(() => {
      rendered = success(Definitions.svc_logs, logAnswer(stdout), settings)
    })
    expect(ms).toBeLessThan(BOUND_MS)
    const text = rendered?.text ?? ""
    expect(text.length).toBeLessThanOrEqual(50_000)
    expect(text).toContain(
      `the service's answer held ${stdout.length + "docker compose logs".length} characters of text from the infrastructure: only its first 200000 were read (4 times the output budget)`,
    )
  })

  it("leaves an answer within the cap as it was, with no note", () => {
    const stdout = `worker | ready password=hunter2 ${"x".repeat(1000)}`
    const rendered = success(Definitions.svc_logs, logAnswer(stdout), { ...settings, maxOutputChars: 1_000_000 })
    expect(rendered.text).not.toContain("characters of text from the infrastructure")
    expect(rendered.text).toContain(`worker | ready password=[masked: password] ${"x".repeat(1000)}`)
  })

  it("cuts between characters, never inside a surrogate pair", () => {
    const stdout = `a${"😀".repeat(200_000)}`
    const rendered = success(Definitions.svc_logs, logAnswer(stdout), { ...settings, revealSecrets: true })
    const structured = rendered.structuredData ?? {}
    expect(structured).toEqual({ truncated: true })
    expect(rendered.text).toContain("only its first 200000 were read")
    expect(rendered.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
  })
})
