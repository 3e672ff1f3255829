#!/usr/bin/env node
/**
 * Bundles the executable into one minified ES module, dist/svc-mcp.js: one file
 * to read and compile at start-up instead of hundreds.
 */
import * as esbuild from "esbuild"

await esbuild
  .build({
    entryPoints: ["src/Main.ts"],
    outfile: "dist/svc-mcp.js",
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Some dependencies are CommonJS and call require(); an ES module has none of its own.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    // Telemetry's SDK is loaded by a dynamic import, only when configured: left out
    // of the bundle, it costs start-up nothing and is read from node_modules then.
    external: ["@effect/opentelemetry", "@effect/opentelemetry/*", "@opentelemetry/*"],
    legalComments: "none",
    logLevel: "warning",
    metafile: process.argv.includes("--analyze"),
  })
  .then(async (result) => {
    if (result.metafile) process.stderr.write(await esbuild.analyzeMetafile(result.metafile, { verbose: false }))
  })
