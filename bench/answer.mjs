#!/usr/bin/env node
/**
 * The capped read's cost per megabyte: a log answer of 50 MB, served by a
 * local HTTP server, read through the built transport (dist/Service/) up to a
 * cap of 1, 2 (the default, forty output budgets) and 4 MB, its request then
 * aborted; what arrived made a value (CutJson), scrubbed and rendered as a
 * tool's answer. Prints ms per MB read (the median of a few runs) and returns
 * the figures; `node bench/answer.mjs` runs it alone. Builds nothing: run
 * `npm run build` first.
 */
import * as Http from "node:http"
import { pathToFileURL } from "node:url"
import { load } from "./built.mjs"

const Effect = await import("effect/Effect")
const Scope = await import("effect/Scope")
const Exit = await import("effect/Exit")
const Transport = await load("Service/Transport.js")
const { fromResponse } = await load("Service/Response.js")
const { success } = await load("Tools/Render.js")
const Definitions = await load("Tools/Catalog/Definitions.js")
const Shown = await load("Call/Shown.js")
const View = await load("Tools/View.js")

const MB = 1_000_000
const SERVED = 50 * MB
const LINE = "2026-11-26T23:40:01Z worker | job 4121 done in 38ms, 12 rows written\\n"
const CHUNK = Buffer.from(LINE.repeat(Math.ceil(65_536 / LINE.length)))

/** A log answer of SERVED bytes, written chunk by chunk as it is read: the server holds none of it whole. */
const serve = () =>
  new Promise((resolve) => {
    const server = Http.createServer((req, res) => {
      req.resume()
      res.writeHead(200, { "content-type": "application/json" })
      res.write('{"stage":"Get Log","command":"docker compose logs","stdout":"')
      let sent = 0
      const more = () => {
        while (sent < SERVED) {
          sent += CHUNK.length
          if (!res.write(CHUNK)) return res.once("drain", more)
        }
        res.end('","stderr":"","success":true}')
      }
      res.on("close", () => {
        sent = SERVED
      })
      more()
    })
    server.listen(0, "127.0.0.1", () => resolve(server))
  })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = (x) => Math.round(x * 100) / 100

/** `rounds` and `caps` smaller than the bench's only to try the script (test/unit/BenchScripts.test.ts). */
export const answerFigure = async ({ quick = false, rounds = quick ? 3 : 7, caps = [1 * MB, 2 * MB, 4 * MB] } = {}) => {
  const server = await serve()
  const url = `http://127.0.0.1:${server.address().port}/read/GetStackLog`
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(Scope.extend(Transport.make, scope))
  const target = { group: "read", endpoint: "GetStackLog" }
  const figures = {}
  // A first read loads undici's Agent and warms what every later one runs: not a figure.
  await Effect.runPromise(Transport.send(client, target, Transport.postJson(url, {}, {}), 30_000, caps[0]))
  for (const cap of caps) {
    const read = []
    const whole = []
    for (let i = 0; i < rounds; i++) {
      const start = performance.now()
      const exchange = await Effect.runPromise(
        Transport.send(client, target, Transport.postJson(url, { stack: "web" }, {}), 30_000, cap),
      )
      const arrived = performance.now()
      const outcome = fromResponse(target, exchange.status, exchange.text, ["a-secret-key", "its-secret"], {
        cutAt: cap,
      })
      const answer = {
        tool: "svc_logs",
        wait: false,
        schema: false,
        selectorKey: "resource_type",
        selector: "stack",
        endpoint: "read/GetStackLog",
        body: { stack: "web" },
        data: outcome.value,
        text: outcome.text,
        cut: cap,
        shown: Shown.Shown.Glance(),
      }
      // The view chosen once, as the tools' program does before rendering (Tools/View.ts).
      const view = View.choose(Definitions.svc_logs, answer, answer.data, answer.text)
      success(Definitions.svc_logs, { ...answer, view }, { maxOutputChars: 50_000, revealSecrets: false })
      read.push(arrived - start)
      whole.push(performance.now() - start)
    }
    figures[`${cap / MB} MB`] = { readMsPerMb: round(median(read) / (cap / MB)), wholeMsPerMb: round(median(whole) / (cap / MB)) }
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
  server.close()
  return { servedMb: SERVED / MB, perCap: figures }
}

export const answerLines = (figure) => [
  `the capped read of a ${figure.servedMb} MB log answer, ms per MB read (median): read to the cap / and made a value, scrubbed, rendered`,
  ...Object.entries(figure.perCap).map(([cap, ms]) => `  cap ${cap}: ${ms.readMsPerMb} / ${ms.wholeMsPerMb}`),
]

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${answerLines(await answerFigure({ quick: process.argv.includes("--quick") })).join("\n")}\n`)
}
