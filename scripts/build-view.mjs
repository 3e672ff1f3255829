#!/usr/bin/env node
/**
 * Builds the fleet view (src/View/App/) into one self-contained HTML page, its
 * script and style inline, nothing loaded from the network, and writes it as
 * a module, dist/fleet-view.js, whose default export is the page: the server
 * imports it when a client first reads ui://svc-mcp/fleet, never at start, and
 * npm ships it with the rest of dist/ (package.json's `files`).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as esbuild from "esbuild"

const root = Path.resolve(import.meta.dirname, "..")
const source = Path.join(root, "src/View/App")
const minify = !process.argv.includes("--no-minify")

// zod (beneath the Apps SDK) carries some fifty languages of its messages; the view, which validates
// only what the host sends it, keeps English, the default.
const englishOnly = {
  name: "english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.resolveDir.includes(`${Path.sep}zod${Path.sep}`)
        ? { path: Path.join(args.resolveDir, "../locales/en.js"), namespace: "english-only" }
        : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: "english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)}`,
      resolveDir: Path.dirname(args.path),
    }))
  },
}

const built = await esbuild.build({
  plugins: [englishOnly],
  entryPoints: [Path.join(source, "App.ts")],
  bundle: true,
  write: false,
  minify,
  format: "esm",
  platform: "browser",
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
})
const script = built.outputFiles[0].text
// An inline script ends at the first "</script": esbuild writes none, and this holds it to that.
if (/<\/script/i.test(script)) throw new Error("the view's script holds </script and cannot be inlined")
const style = Fs.readFileSync(Path.join(source, "fleet.css"), "utf8")
const html = Fs.readFileSync(Path.join(source, "fleet.html"), "utf8")
  .replace("/*STYLE*/", () => style)
  .replace("/*SCRIPT*/", () => script)

Fs.mkdirSync(Path.join(root, "dist"), { recursive: true })
Fs.writeFileSync(
  Path.join(root, "dist/fleet-view.js"),
  `// The fleet view's page (scripts/build-view.mjs).\nexport default ${JSON.stringify(html)}\n`,
)
process.stderr.write(`fleet view: ${Buffer.byteLength(html)} bytes\n`)
