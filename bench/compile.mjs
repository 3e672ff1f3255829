#!/usr/bin/env node
/**
 * What parsing and compiling the program costs a start without a compile cache: each file a start
 * loads (dist/start.json, written by the bundle) made a module by V8 (`vm.SourceTextModule`: parsed,
 * its top level compiled, its functions pre-parsed, nothing linked or run), 7 times each in a fresh
 * context, the median of the sum. Run by the bench on each Node it measures:
 *
 *   node --experimental-vm-modules bench/compile.mjs      # prints { bytes, files, parseCompileMs }
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Vm from "node:vm"

const DIST = Path.resolve(import.meta.dirname, "../dist")
const start = JSON.parse(Fs.readFileSync(Path.join(DIST, "start.json"), "utf8"))
const sources = start.files.map((file) => Fs.readFileSync(Path.join(DIST, file), "utf8"))
const times = []
for (let i = 0; i < 7; i++) {
  const context = Vm.createContext({})
  const t0 = process.hrtime.bigint()
  for (const [n, source] of sources.entries()) new Vm.SourceTextModule(source, { context, identifier: `m${n}-${i}` })
  times.push(Number(process.hrtime.bigint() - t0) / 1e6)
}
times.sort((a, b) => a - b)
const parseCompileMs = Math.round(times[3] * 10) / 10
process.stdout.write(`${JSON.stringify({ bytes: start.bytes, files: start.files.length, parseCompileMs })}\n`)
