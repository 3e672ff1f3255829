#!/usr/bin/env node
/**
 * Bundles the executable into one minified CommonJS script, dist/svc-mcp.cjs:
 * one file to read and compile at start-up instead of hundreds; and its entry,
 * dist/svc-mcp.js, which runs it with a V8 code cache (src/Cli/CompileCache.ts).
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as esbuild from "esbuild"

const analyze = process.argv.includes("--analyze")
const minify = !process.argv.includes("--no-minify")

const bundled = await esbuild.build({
  entryPoints: ["src/Main.ts"],
  outfile: "dist/svc-mcp.cjs",
  bundle: true,
  minify,
  // A script, not a module: vm.Script can cache its compiled code on every Node version.
  format: "cjs",
  platform: "node",
  target: "node20",
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Telemetry's SDK is loaded only when configured: left out of the bundle, it costs
  // start-up nothing and is read from node_modules then.
  external: ["@effect/opentelemetry", "@effect/opentelemetry/*", "@opentelemetry/*"],
  // ...by require() when it is asked for: a script restored from a code cache loses the
  // callback that import() needs (Node 20 to 24 answer "A dynamic import callback was not specified").
  supported: { "dynamic-import": false },
  legalComments: "none",
  logLevel: "warning",
  metafile: analyze,
})
if (bundled.metafile) process.stderr.write(await esbuild.analyzeMetafile(bundled.metafile, { verbose: false }))

// src/Main.ts's #! line is the entry's alone: inside the script's function wrapper it would not parse.
const script = Fs.readFileSync("dist/svc-mcp.cjs", "utf8").replace(/^#!.*\n/, "")
Fs.writeFileSync("dist/svc-mcp.cjs", script)
const hash = Crypto.createHash("sha256").update(script).digest("hex").slice(0, 16)
await esbuild.build({
  stdin: {
    contents: `import * as Path from "node:path"\nimport { run } from "./src/Cli/CompileCache.ts"\nrun(Path.join(import.meta.dirname, "svc-mcp.cjs"), ${JSON.stringify(hash)})\n`,
    resolveDir: ".",
    loader: "ts",
  },
  outfile: "dist/svc-mcp.js",
  bundle: true,
  minify,
  format: "esm",
  platform: "node",
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
  legalComments: "none",
  logLevel: "warning",
})
Fs.chmodSync("dist/svc-mcp.js", 0o755)
