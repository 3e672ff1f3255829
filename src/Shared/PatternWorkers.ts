/**
 * A batch pattern read off the event loop: its regexes compiled by RE2 (re2js) and its entries
 * laid on the names in a worker thread, within a time budget. A regex's compiling and matching are
 * single calls, which no budget can interrupt where they run: on the event loop, one regex of a few
 * KB held the server for seconds. In a worker, the budget is held from outside: the worker is
 * terminated when it runs out, and the call refused. The workers stay for the next pattern, at
 * most WORKERS at once and the bounds' `waiting` patterns waiting for one; none keeps the process alive.
 *
 * The worker runs `serve` and the wildcards' maker and laying (Shared/NameWildcard.ts) from their source text:
 * a worker thread cannot load this module from TypeScript, nor the engine from a bundle without
 * its path, which the program gives it (the executable's own copy of re2js, or the package's).
 */
import { laying, type NameTest, wildcards } from "./NameWildcard.js"

/** One pattern to read: its entries, whether each is a regex, the names and the program's bound. */
export interface Job {
  readonly entries: ReadonlyArray<{ readonly text: string; readonly regex: boolean }>
  readonly names: ReadonlyArray<string>
  /** The most instructions the regexes' RE2 programs may hold in all. */
  readonly program: number
}

/** What reading a pattern came to: the names' indexes it matched, or why it stopped. */
export type Answer =
  | { readonly _tag: "Matched"; readonly matched: ReadonlyArray<number> }
  | { readonly _tag: "Engine"; readonly entry: string; readonly reason: string }
  | { readonly _tag: "Program"; readonly entry: string; readonly program: number }
  | { readonly _tag: "Budget" }
  | { readonly _tag: "Stopped"; readonly reason: string }
  | { readonly _tag: "Busy" }

/** A pool of workers reading patterns: its own, made by `makePool`, ended by `close`. */
export interface Pool {
  /** Reads `job` in a worker, stopping it when `budgetMs` runs out. */
  readonly read: (job: Job, budgetMs: number) => Promise<Answer>
  /** Ends every worker, busy or idle; a pattern read afterwards is refused. */
  readonly close: () => Promise<void>
}

/** A pool's bounds (PatternReader.ts): patterns waiting, a worker's heap (MB), and why one closed refuses. */
export interface Bounds {
  readonly waiting: number
  readonly memoryMb: number
  readonly closed: string
}

/** Workers at once: the machine's two cores. */
const WORKERS = 2
/** The longest a worker may take to start, its engine loaded (ms), before the call waiting for it is refused. */
const START_MS = 30_000

type Engine = typeof import("re2js")
interface Port {
  on(event: "message", listener: (job: Job) => void): void
  postMessage(answer: Answer | { readonly _tag: "Ready" }): void
}

/** A worker's whole work. Run from its source text: it refers to nothing outside itself. */
const serve = (engine: Engine, port: Port, wildcard: (entry: string) => NameTest): void => {
  const read = (job: Job): Answer => {
    const tests: Array<NameTest> = []
    let program = 0
    for (const { text, regex } of job.entries) {
      if (!regex) {
        tests.push(wildcard(text))
        continue
      }
      let compiled: ReturnType<Engine["RE2JS"]["compile"]>
      try {
        compiled = engine.RE2JS.compile(text.slice(1, -1))
      } catch (error) {
        return { _tag: "Engine", entry: text, reason: error instanceof Error ? error.message : String(error) }
      }
      program += compiled.programSize()
      if (program > job.program) return { _tag: "Program", entry: text, program }
      tests.push((name) => compiled.test(name))
    }
    const matched: Array<number> = []
    job.names.forEach((name, i) => {
      if (tests.some((test) => test(name))) matched.push(i)
    })
    return { _tag: "Matched", matched }
  }
  port.on("message", (job) => port.postMessage(read(job)))
  port.postMessage({ _tag: "Ready" })
}

const SOURCE = [
  'const { parentPort, workerData } = require("node:worker_threads");',
  `import(workerData.engine).then((engine) => (${serve.toString()})(engine, parentPort, (${wildcards.toString()})((${laying.toString()})())));`,
].join("\n")

/** The executable's own copy of the engine, beside its chunks (scripts/bundle.mjs); undefined elsewhere. */
declare const SVC_MCP_ENGINE: string | undefined

const engineUrl = async (): Promise<string> => {
  if (typeof SVC_MCP_ENGINE !== "undefined") return new URL(SVC_MCP_ENGINE, import.meta.url).href
  const [{ createRequire }, { pathToFileURL }] = await Promise.all([import("node:module"), import("node:url")])
  return pathToFileURL(createRequire(import.meta.url).resolve("re2js")).href
}

type Worker = import("node:worker_threads").Worker

const spawn = async (memoryMb: number): Promise<Worker> => {
  const [{ Worker }, engine] = await Promise.all([import("node:worker_threads"), engineUrl()])
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { engine },
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
  })
  // Heard by the job it stops; one that stops an idle worker is met by the next job's budget.
  worker.on("error", () => {})
  worker.unref()
  // Ready once its engine is loaded: a budget is the pattern's, not a worker's start on a busy machine.
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer)
      worker.off("message", ready)
      worker.off("error", settle)
      worker.off("exit", exited)
      if (error === undefined) return resolve()
      void worker.terminate()
      reject(error)
    }
    const ready = () => settle()
    const exited = (code: number) => settle(new Error(`its worker exited with code ${code}`))
    const timer = setTimeout(() => settle(new Error(`its worker did not start within ${START_MS / 1000} s`)), START_MS)
    worker.on("message", ready)
    worker.on("error", settle)
    worker.on("exit", exited)
  })
  return worker
}

/**
 * A pool's workers, started when first needed, at most WORKERS; a job waits for one freed, and
 * after `close` none is given out again.
 */
const workerSlots = (bounds: Bounds) => {
  const idle: Array<Worker> = []
  const waiting: Array<(worker: Worker | PromiseLike<Worker>) => void> = []
  const workers = new Set<Worker>()
  let alive = 0
  let closed = false

  const started = (): Promise<Worker> =>
    spawn(bounds.memoryMb).then((worker) => {
      if (closed) {
        void worker.terminate()
        throw new Error(bounds.closed)
      }
      workers.add(worker)
      return worker
    })

  /** A worker for one job: an idle one, a new one, or the next one freed; undefined when too many wait. */
  const acquire = (): Promise<Worker> | undefined => {
    const ready = idle.pop()
    if (ready !== undefined) return Promise.resolve(ready)
    if (alive < WORKERS) {
      alive++
      return started()
    }
    if (waiting.length >= bounds.waiting) return undefined
    return new Promise<Worker>((resolve) => waiting.push(resolve))
  }

  /** A job's worker given back (`kept`) or stopped: to the next waiting, else kept idle. One stopped (or never started) is replaced. */
  const release = (worker: Worker | undefined, kept: boolean) => {
    if (worker !== undefined && (!kept || closed)) workers.delete(worker)
    if (closed) {
      if (worker !== undefined && kept) void worker.terminate()
      return
    }
    const next = waiting.shift()
    if (next !== undefined) next(kept && worker !== undefined ? worker : started())
    else if (kept && worker !== undefined) idle.push(worker)
    else alive--
  }

  const close = async (): Promise<void> => {
    closed = true
    idle.length = 0
    for (const next of waiting.splice(0)) next(Promise.reject(new Error(bounds.closed)))
    await Promise.all([...workers].map((worker) => worker.terminate()))
    workers.clear()
  }

  return { acquire, release, close, isClosed: () => closed }
}

/** A pool of its own (PatternReader.ts makes it), with no worker until the first pattern that needs one. */
export const makePool = (bounds: Bounds): Pool => {
  const { acquire, release, close, isClosed } = workerSlots(bounds)
  const read = async (job: Job, budgetMs: number): Promise<Answer> => {
    if (isClosed()) return { _tag: "Stopped", reason: bounds.closed }
    const acquired = acquire()
    if (acquired === undefined) return { _tag: "Busy" }
    let worker: Worker
    try {
      worker = await acquired
    } catch (error) {
      release(undefined, false)
      return { _tag: "Stopped", reason: error instanceof Error ? error.message : String(error) }
    }
    return readIn(worker, job, budgetMs, release)
  }

  return { read, close }
}

/** `job` read by `worker`, which goes back by `release`, kept or stopped. */
const readIn = (
  worker: Worker,
  job: Job,
  budgetMs: number,
  release: (worker: Worker, kept: boolean) => void,
): Promise<Answer> =>
  new Promise<Answer>((resolve) => {
    const done = (answer: Answer, keep: boolean) => {
      clearTimeout(timer)
      worker.off("message", answered)
      worker.off("error", failed)
      worker.off("exit", exited)
      if (!keep) void worker.terminate()
      release(worker, keep)
      resolve(answer)
    }
    const answered = (answer: Answer) => done(answer, true)
    const failed = (error: Error) => done({ _tag: "Stopped", reason: error.message }, false)
    const exited = (code: number) => done({ _tag: "Stopped", reason: `its worker exited with code ${code}` }, false)
    const timer = setTimeout(() => done({ _tag: "Budget" }, false), budgetMs)
    worker.on("message", answered)
    worker.on("error", failed)
    worker.on("exit", exited)
    worker.postMessage(job)
  })
