/**
 * A module of the program for the bench's scripts: from the build (dist/), which the bench
 * measures; under vitest, which compiles TypeScript as it loads it, from the source (src/), so
 * that the unit lane runs each script's calls into the program with no build before it
 * (test/unit/BenchScripts.test.ts).
 */
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const ROOT = Path.resolve(import.meta.dirname, "..")
const SOURCE = process.env.VITEST !== undefined

/** `module` as dist/ names it (`Untrusted/Mask.js`), loaded from the build, or from its source under vitest. */
export const load = (module) =>
  SOURCE
    ? import(Path.join(ROOT, "src", module.replace(/\.js$/, ".ts")))
    : import(pathToFileURL(Path.join(ROOT, "dist", module)).href)
