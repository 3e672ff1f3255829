#!/usr/bin/env node
/**
 * What parsing and compiling the program costs a start without a compile cache: each file a start
 * loads (dist/start.json, written by the bundle) made a module by V8 (`vm.SourceTextModule`: parsed,
 * its top level compiled, its functions pre-parsed, nothing linked or run), 7 times each in a fresh
 * context, the median of the sum; on Node 20, the program's CommonJS file, which a start there
 * loads instead, compiled as a script. Run by the bench on each Node it measures:
 *
 *   node --experimental-vm-modules bench/compile.mjs      # prints { bytes, files, parseCompileMs }
 */
import * as Fs from "node:fs"
import * as Module from "node:module"
import * as Path from "node:path"
import * as Vm from "node:vm"

const DIST = Path.resolve(import.meta.dirname, "../dist")
const PROGRAM_CJS = Path.join(DIST, "svc-mcp", "program.cjs")
const times = []
let loaded
if (Module.enableCompileCache === undefined && Fs.existsSync(PROGRAM_CJS)) {
  // Node 20, which has no compile cache, starts the program's one CommonJS file (src/Cli/Start.ts):
  // compiled as a script (its top level, its functions pre-parsed), each time a source of its own,
  // so that V8's in-memory cache of scripts does not answer.
  const source = Fs.readFileSync(PROGRAM_CJS, "utf8")
  loaded = { bytes: Buffer.byteLength(source), files: 1 }
  for (let i = 0; i < 7; i++) {
    const t0 = process.hrtime.bigint()
    new Vm.Script(`(function () {${source}\n})//${i}`, { filename: `${PROGRAM_CJS}-${i}` })
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
} else {
  const start = JSON.parse(Fs.readFileSync(Path.join(DIST, "start.json"), "utf8"))
  const sources = start.files.map((file) => Fs.readFileSync(Path.join(DIST, file), "utf8"))
  loaded = { bytes: start.bytes, files: start.files.length }
  for (let i = 0; i < 7; i++) {
    const context = Vm.createContext({})
    const t0 = process.hrtime.bigint()
    for (const [n, source] of sources.entries()) new Vm.SourceTextModule(source, { context, identifier: `m${n}-${i}` })
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
}
times.sort((a, b) => a - b)
const parseCompileMs = Math.round(times[3] * 10) / 10
process.stdout.write(`${JSON.stringify({ ...loaded, parseCompileMs })}\n`)
