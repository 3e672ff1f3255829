#!/usr/bin/env node
/**
 * Bundles the executable as ES modules, minified: the program (src/Main.ts) in
 * dist/svc-mcp/, split so that what serving over stdio never uses (the HTTP mode,
 * the sandbox, check, setup, telemetry) is a chunk of its own, loaded by its
 * dynamic import when asked for; the same program as one CommonJS file for Node 20;
 * and its entry, dist/svc-mcp.js, which starts the program with V8's compiled code
 * kept from an earlier start (src/Cli/Start.ts). A few files to read and compile at
 * start-up instead of hundreds.
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
 * code (tsc's output in dist/), keyed as src/Tools/Tool.ts looks them up: a start publishes
 * these instead of making them (test/e2e/Stdio.e2e.test.ts holds them equal to the source's).
 */
const { all: tools } = await import(Path.resolve("dist/Tools/Definitions.js"))
const { publishedKey } = await import(Path.resolve("dist/Tools/Tool.js"))
const published = Object.fromEntries(tools.map((tool) => [publishedKey(tool), tool.inputSchema]))

/** What both builds of the program share (the ES modules and the CommonJS file). */
const program = {
  // Telemetry's SDK is loaded only when configured, from node_modules: start-up never reads it.
  external: ["@effect/opentelemetry", "@effect/opentelemetry/*", "@opentelemetry/*"],
  define: { SVC_MCP_PUBLISHED: JSON.stringify(published) },
}
// The SDK's shims are src/Mcp/SdkShims.ts: its own bring ajv, which the servers do not use.
const sdkShims = {
  name: "sdk-shims",
  setup: (build) =>
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: Path.resolve("src/Mcp/SdkShims.ts"),
    })),
}

// Chunks are named by their hash: a build leaves none of an earlier one's behind.
Fs.rmSync(PROGRAM, { recursive: true, force: true })
const bundled = await esbuild.build({
  ...common,
  entryPoints: { main: "src/Main.ts" },
  outdir: PROGRAM,
  splitting: true,
  chunkNames: "[name]-[hash]",
  // The modules some dependencies load with require() (CommonJS inside the bundle) need a require of their own.
  // (process.getBuiltinModule, not an ES import of node:module, which would evaluate all its lazy exports at start.)
  banner: { js: 'const require=process.getBuiltinModule("node:module").createRequire(import.meta.url);' },
  external: program.external,
  metafile: true,
  define: program.define,
  plugins: [sdkShims],
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

/**
 * The same program as one CommonJS file (dist/svc-mcp/program.cjs), for a Node with no compile
 * cache of its own (Node 20): src/Cli/Start.ts runs it as a vm.Script with V8's code cache. Its
 * dynamic imports are functions of the one file, run when called, as the chunks are loaded when
 * imported; `import.meta.url` is the file's own URL, beside the chunks, so what the program finds
 * beside itself it finds alike.
 */
const PROGRAM_CJS = `${PROGRAM}/program.cjs`
await esbuild.build({
  ...common,
  format: "cjs",
  entryPoints: ["src/Main.ts"],
  outfile: PROGRAM_CJS,
  external: program.external,
  define: { ...program.define, "import.meta.url": "importMetaUrl" },
  inject: ["scripts/cjs-import-meta.js"],
  // Node 20 imports nothing for a script run from V8's code cache: an import() of a package by name
  // (telemetry's SDK) becomes require(), called when the import() would have been, and the one of a
  // file named at run time (the fleet view's page) goes through Shared/Load.ts, here the
  // executable's own import() (svcMcpLoad, an argument of the script's function: src/Cli/Start.ts).
  supported: { "dynamic-import": false },
  plugins: [
    sdkShims,
    {
      name: "load",
      setup: (build) =>
        build.onLoad({ filter: /[\\/]src[\\/]Shared[\\/]Load\.ts$/ }, () => ({
          contents: "export const load = (specifier) => svcMcpLoad(specifier)",
          loader: "js",
        })),
    },
  ],
})
// The script's source is the body of a function (src/Cli/Start.ts): it cannot begin with the entry's #! line.
Fs.writeFileSync(PROGRAM_CJS, Fs.readFileSync(PROGRAM_CJS, "utf8").replace(/^#!.*\n/, ""))

// The build's name: a hash of every file of the program, which names its compile cache.
const hash = Crypto.createHash("sha256")
for (const file of [...Object.keys(bundled.metafile.outputs), PROGRAM_CJS].sort()) {
  hash.update(file).update(Fs.readFileSync(file))
}
const build = hash.digest("hex").slice(0, 16)

const main = `./${Path.relative("dist", PROGRAM)}/main.js`
await esbuild.build({
  ...common,
  stdin: {
    contents: [
      'import { start } from "./src/Cli/Start.ts"',
      `if (!start(import.meta.dirname, ${JSON.stringify(build)})) await import(${JSON.stringify(main)})`,
    ].join("\n"),
    resolveDir: ".",
    loader: "ts",
  },
  outfile: "dist/svc-mcp.js",
  external: [main],
  banner: { js: "#!/usr/bin/env node" },
})
Fs.chmodSync("dist/svc-mcp.js", 0o755)
