/**
 * Every setting is refused the same way by the built server: one line on
 * stderr that names the variable and the fix, nothing on stdout, exit code 2.
 * Telemetry's, the audit log's and the params check's variables included, over
 * stdio and over HTTP.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layers from "../support/Layers.js"
import * as Spawn from "../support/Spawn.js"

// Nothing listens there: a refused setting stops the start before anything is called.
const keyEnv = { SVC_URL: "http://127.0.0.1:9", SVC_API_KEY: Layers.KEY, SVC_API_SECRET: Layers.SECRET }

const refusals = (directory: string): ReadonlyArray<readonly [Record<string, string>, RegExp]> => [
  [{ OTEL_METRIC_EXPORT_INTERVAL: "soon" }, /^svc-mcp: OTEL_METRIC_EXPORT_INTERVAL is not a positive whole number/],
  [
    { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_METRIC_EXPORT_INTERVAL: "-5" },
    /^svc-mcp: OTEL_METRIC_EXPORT_INTERVAL is not a positive whole number of milliseconds \("-5"\)/,
  ],
  [
    { OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" },
    /^svc-mcp: OTEL_EXPORTER_OTLP_ENDPOINT is not an http:\/\/ or https:\/\/ URL \("localhost:4318"\)/,
  ],
  [
    { SVC_AUDIT_LOG: Path.join(directory, "missing", "audit.log") },
    /^svc-mcp: SVC_AUDIT_LOG names a file that cannot be opened for appending \(ENOENT\)/,
  ],
  [{ SVC_AUDIT_LOG: directory }, /^svc-mcp: SVC_AUDIT_LOG names a file that cannot be opened for appending \(EISDIR\)/],
  [{ SVC_CHECK_PARAMS: "maybe" }, /^svc-mcp: SVC_CHECK_PARAMS is "maybe": use on .* or off/],
  [{ SVC_ACCESS_CHANGES: "maybe" }, /^svc-mcp: SVC_ACCESS_CHANGES is "maybe": use deny .* or allow/],
  [
    { SVC_MAX_ANSWER_BYTES: "2mb" },
    /^svc-mcp: SVC_MAX_ANSWER_BYTES is not a whole number of bytes from 1024 \("2mb"\)/,
  ],
]

describe("a malformed setting", () => {
  it.live("stops the start with one line on stderr and exit code 2, over stdio and HTTP", () =>
    Effect.gen(function* () {
      const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-settings-"))
      for (const [env, message] of refusals(directory)) {
        for (const http of [{}, { SVC_MCP_HTTP_PORT: "0" }]) {
          const finished = yield* Spawn.run({ ...keyEnv, ...env, ...http })
          const context = JSON.stringify({ ...env, ...http })
          expect(finished.code, context).toBe(2)
          expect(finished.stdout, context).toBe("")
          expect(finished.stderr.trimEnd().split("\n"), context).toHaveLength(1)
          expect(finished.stderr, context).toMatch(message)
          expect(finished.stderr, context).toMatch(/\(see svc-mcp --help\)\n$/)
        }
      }
    }),
  )

  it.live("settings that are well formed let it start: it serves until stdin ends, then exits 0", () =>
    Effect.gen(function* () {
      const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-settings-"))
      const finished = yield* Spawn.run({
        ...keyEnv,
        OTEL_METRIC_EXPORT_INTERVAL: "",
        SVC_AUDIT_LOG: Path.join(directory, "audit.log"),
        SVC_CHECK_PARAMS: "OFF",
      })
      expect(finished.code).toBe(0)
      expect(finished.stderr).toMatch(/params sent unchecked \(SVC_CHECK_PARAMS=off\)/)
      expect(Fs.existsSync(Path.join(directory, "audit.log"))).toBe(true)
    }),
  )
})

describe("a variable that no setting reads", () => {
  it.live("gets a warning at start naming the setting meant, and check a [warn] line", () =>
    Effect.gen(function* () {
      const served = yield* Spawn.run({ ...keyEnv, SVC_MDOE: "read-only" })
      expect(served.code).toBe(0)
      expect(served.stderr).toContain("SVC_MDOE is no setting; did you mean SVC_MODE?")
      const checked = yield* Spawn.run({ ...keyEnv, SVC_MDOE: "read-only" }, ["check"])
      expect(checked.stderr).toMatch(/^ {2}\[warn\] settings SVC_MDOE is no setting; did you mean SVC_MODE\?$/m)
      // And the calls that lose data full mode offers unasked, with the setting that asks before them.
      expect(checked.stderr).toMatch(/^ {2}\[warn\] losing {3}\d+ calls that remove or stop something are offered/m)
      expect(checked.stderr).toMatch(/-> set SVC_CONFIRM=destructive/)
      const asked = yield* Spawn.run({ ...keyEnv, SVC_CONFIRM: "destructive" }, ["check"])
      expect(asked.stderr).not.toMatch(/is no setting/)
      expect(asked.stderr).toMatch(
        /^ {2}\[ok {2}\] losing {3}every call offered that removes or stops something is asked first/m,
      )
    }),
  )
})
