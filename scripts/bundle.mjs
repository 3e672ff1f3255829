#!/usr/bin/env node
/**
 * Bundles the executable as ES modules, minified: the program (src/Main.ts) in
 * dist/svc-mcp/, split so that what serving over stdio never uses (the HTTP mode,
 * the sandbox, check, setup, telemetry) is a chunk of its own, loaded by its
 * dynamic import when asked for; and its entry, dist/svc-mcp.js, which turns on
 * Node's compile cache (src/Cli/Start.ts) before it loads the program. A few files
 * to read and compile at start-up instead of hundreds.
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as esbuild from "esbuild"

const analyze = process.argv.includes("--analyze")
const minify = !process.argv.includes("--no-minify")
const PROGRAM = "dist/svc-mcp"

const common = {
  bundle: true,
  minify,
  format: "esm",
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
}

/**
 * Each default tool's published schema, made here from its Effect Schema by the program's own
 * code (tsc's output in dist/), keyed as src/Tools/Catalog/Tool.ts looks them up: a start publishes
 * these instead of making them (test/e2e/Stdio.e2e.test.ts holds them equal to the source's).
 */
const { all: tools } = await import(Path.resolve("dist/Tools/Catalog/Definitions.js"))
const { publishedKey } = await import(Path.resolve("dist/Tools/Catalog/Tool.js"))
const published = Object.fromEntries(tools.map((tool) => [publishedKey(tool), tool.inputSchema]))

// Chunks are named by their hash: a build leaves none of an earlier one's behind.
Fs.rmSync(PROGRAM, { recursive: true, force: true })
const bundled = await esbuild.build({
  ...common,
  // The batch pattern's engine, on its own for the worker thread that reads a pattern (src/Shared/PatternReader.ts).
  entryPoints: { main: "src/Main.ts", re2js: "re2js" },
  outdir: PROGRAM,
  splitting: true,
  chunkNames: "[name]-[hash]",
  // The modules some dependencies load with require() (CommonJS inside the bundle) need a require of their own.
  // (process.getBuiltinModule, not an ES import of node:module, which would evaluate all its lazy exports at start.)
  banner: { js: 'const require=process.getBuiltinModule("node:module").createRequire(import.meta.url);' },
  // Telemetry's SDK is loaded only when configured, from node_modules: start-up never reads it.
  external: ["@effect/opentelemetry", "@effect/opentelemetry/*", "@opentelemetry/*"],
  metafile: true,
  define: { SVC_MCP_PUBLISHED: JSON.stringify(published), SVC_MCP_ENGINE: JSON.stringify("./re2js.js") },
  // The SDK's shims are src/Mcp/Server/SdkShims.ts: its own bring ajv, which the servers do not use.
  plugins: [
    {
      name: "sdk-shims",
      setup: (build) =>
        build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
          path: Path.resolve("src/Mcp/Server/SdkShims.ts"),
        })),
    },
  ],
})
if (analyze) process.stderr.write(await esbuild.analyzeMetafile(bundled.metafile, { verbose: false }))

/**
 * What a start loads before its first answer: the program's entry and every chunk it imports
 * statically, with their bytes and the modules in them (dist/start.json, which
 * test/e2e/StartModules.e2e.test.ts holds to a budget). A dynamic import is loaded when used.
 */
const startClosure = (outputs, entry) => {
  const files = new Set()
  const stack = [entry]
  while (stack.length > 0) {
    const file = stack.pop()
    if (files.has(file)) continue
    files.add(file)
    for (const imported of outputs[file].imports) {
      if (imported.kind === "import-statement" && imported.external !== true) stack.push(imported.path)
    }
  }
  const sorted = [...files].sort()
  return {
    bytes: sorted.reduce((sum, file) => sum + outputs[file].bytes, 0),
    files: sorted.map((file) => Path.relative("dist", file)),
    inputs: sorted.flatMap((file) => Object.keys(outputs[file].inputs)).sort(),
  }
}
const start = startClosure(bundled.metafile.outputs, `${PROGRAM}/main.js`)
Fs.writeFileSync("dist/start.json", `${JSON.stringify(start, null, 1)}\n`)

// The build's name: a hash of every file of the program, which names its compile cache.
const hash = Crypto.createHash("sha256")
for (const file of Object.keys(bundled.metafile.outputs).sort()) hash.update(file).update(Fs.readFileSync(file))
const build = hash.digest("hex").slice(0, 16)

const main = `./${Path.relative("dist", PROGRAM)}/main.js`
await esbuild.build({
  ...common,
  stdin: {
    contents: [
      'import { enableCompileCache } from "./src/Cli/Start.ts"',
      `enableCompileCache(import.meta.dirname, ${JSON.stringify(build)})`,
      `await import(${JSON.stringify(main)})`,
    ].join("\n"),
    resolveDir: ".",
    loader: "ts",
  },
  outfile: "dist/svc-mcp.js",
  external: [main],
  banner: { js: "#!/usr/bin/env node" },
})
Fs.chmodSync("dist/svc-mcp.js", 0o755)
