/**
 * The work a synchronous function does on an input, counted, never timed: V8's block coverage
 * in count mode (the inspector's Profiler). Each function and each block of it that runs (a branch
 * taken, a loop's body once a turn) adds one each time it runs, so a reader linear in its input
 * counts linearly in it, and one that reads a text again for each of its parts counts
 * quadratically, however busy the machine. The string builtins count too, by the characters a
 * call reads or makes (`slice`'s result, `indexOf`'s span, `split`'s whole string, a regex's
 * input): a reader that slices or searches a text from its start for each of its parts is
 * quadratic in them as well.
 *
 * V8 counts blocks only in code compiled once counting is on, so the module is bundled (esbuild,
 * with what it imports) and loaded in a worker thread of its own, after counting starts there.
 */
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import * as esbuild from "esbuild"

/** Runs in the worker: counting on, the bundle loaded, run once to warm, then each input counted. */
const COUNTER = `
const { parentPort, workerData } = require("node:worker_threads")
const { Session } = require("node:inspector/promises")
let measuring = false
let read = 0
const indexOf = String.prototype.indexOf
const span = (from, found, length) => (found < 0 ? length : found) - Math.max(0, Math.min(from ?? 0, length))
const weigh = (owner, name, weight) => {
  const builtin = owner[name]
  owner[name] = function (...args) {
    const result = builtin.apply(this, args)
    if (measuring) read += Math.max(0, weight(String(this), args, result))
    return result
  }
}
const whole = (text) => text.length
for (const name of ["slice", "substring", "substr", "repeat"]) weigh(String.prototype, name, (_, __, result) => result.length)
for (const name of ["indexOf", "includes"]) {
  weigh(String.prototype, name, (text, [search, from], result) =>
    span(from, typeof result === "number" ? result : result ? indexOf.call(text, search, from) : -1, text.length),
  )
}
for (const name of ["startsWith", "endsWith"]) weigh(String.prototype, name, (_, [search]) => String(search).length)
for (const name of ["lastIndexOf", "split", "replace", "replaceAll", "match", "matchAll", "search", "trim", "toLowerCase", "toUpperCase", "normalize"]) {
  weigh(String.prototype, name, whole)
}
for (const name of ["exec", "test"]) weigh(RegExp.prototype, name, (_, [input]) => String(input).length)
;(async () => {
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true })
  const url = "data:text/javascript;base64," + Buffer.from(workerData.code).toString("base64")
  const run = (await import(url)).run
  // Once to warm (what a first run alone does: a regex compiled, a table filled), on the first input.
  run(workerData.inputs[0])
  const counts = []
  for (const input of workerData.inputs) {
    // Taking the coverage resets its counts: what is taken next is this input's alone.
    await session.post("Profiler.takePreciseCoverage")
    read = 0
    measuring = true
    run(input)
    measuring = false
    const { result } = await session.post("Profiler.takePreciseCoverage")
    let work = read
    for (const script of result) {
      if (script.url !== url && !script.url.startsWith("file:")) continue
      for (const fn of script.functions) for (const range of fn.ranges) work += range.count
    }
    counts.push(work)
  }
  parentPort.postMessage(counts)
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }))
`

const require = createRequire(import.meta.url)

/**
 * The packages the module imports, loaded from node_modules as they are, not bundled (the bundle
 * is read from a data: URL, where a package's name resolves to nothing): counted all the same.
 */
const packages: esbuild.Plugin = {
  name: "packages",
  setup: (build) => {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      path.startsWith("node:")
        ? { path, external: true }
        : { path: pathToFileURL(require.resolve(path)).href, external: true },
    )
  },
}

/** The repository's root, from which a counted module's imports are resolved. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url))

/**
 * The work (blocks run, characters the builtins read) that the function `run`, exported by the
 * module `source` (TypeScript, its imports from the repository's root: `./src/...`), does on each
 * of `inputs` (values a worker can be sent), in that order.
 */
export const counts = async (source: string, inputs: ReadonlyArray<unknown>): Promise<ReadonlyArray<number>> => {
  const bundled = await esbuild.build({
    stdin: { contents: source, resolveDir: ROOT, loader: "ts", sourcefile: "counted.ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
    plugins: [packages],
  })
  const code = bundled.outputFiles[0]?.text ?? ""
  const worker = new Worker(COUNTER, { eval: true, workerData: { code, inputs } })
  try {
    const answer = await new Promise<unknown>((resolve, reject) => {
      worker.once("message", resolve)
      worker.once("error", reject)
    })
    if (!Array.isArray(answer)) throw new Error(`counting failed: ${JSON.stringify(answer)}`)
    return answer
  } finally {
    await worker.terminate()
  }
}
