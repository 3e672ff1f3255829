import * as esbuild from "esbuild"
import * as Path from "node:path"
const r = await esbuild.build({ bundle: true, minify: true, format: "esm", platform: "node", target: "node20", logLevel: "error",
  entryPoints: { main: "src/Main.ts" }, outdir: "/tmp/s3/sz", splitting: true, write: false, metafile: true,
  external: ["@effect/opentelemetry", "@effect/opentelemetry/*", "@opentelemetry/*"], define: { SVC_MCP_PUBLISHED: "undefined" },
  plugins: [{ name: "sdk-shims", setup: (build) => build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: Path.resolve("src/Mcp/SdkShims.ts") })) }] })
const ins = r.metafile.inputs
const target = process.argv[2]
// BFS from src/Main.ts over static imports, record parent
const parent = new Map([["src/Main.ts", null]]); const q = ["src/Main.ts"]
while (q.length) { const f = q.shift(); for (const i of ins[f]?.imports ?? []) { if (i.kind !== "import-statement" || i.external) continue; if (!parent.has(i.path)) { parent.set(i.path, f); q.push(i.path) } } }
for (const t of Object.keys(ins).filter((k) => k.includes(target))) { const chain = []; let c = t; while (c) { chain.push(c); c = parent.get(c) } if (parent.has(t)) console.log(chain.reverse().join("\n  -> "), "\n") }
