/**
 * The MCP Registry entry, server.json: valid against the registry's schema (the
 * 2025-12-11 schema, kept in spec/), the same name and version as package.json,
 * and every variable a stdio client may set, as the one list of variables has them.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import * as Variables from "../../src/Cli/Variables.js"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const read = (file: string) => JSON.parse(Fs.readFileSync(Path.join(root, file), "utf8"))

const pkg = read("package.json")
const server = read("server.json")

const validate = (() => {
  const ajv = new Ajv({ allErrors: true, strict: false })
  ajv.addFormat("uri", (text: string) => URL.canParse(text))
  return ajv.compile(read("spec/mcp-registry-server.schema.json"))
})()

interface EnvironmentVariable {
  readonly name: string
  readonly description: string
  readonly isSecret?: boolean
  readonly isRequired?: boolean
}

describe("server.json", () => {
  it("is valid against the registry's schema (which refuses what breaks it)", () => {
    expect(validate(server), JSON.stringify(validate.errors)).toBe(true)
    expect(validate({ ...server, name: "svc-mcp" })).toBe(false)
    expect(validate({ ...server, packages: [{ ...server.packages[0], transport: { type: "pipe" } }] })).toBe(false)
  })

  it("names the npm package by package.json's mcpName, name and version", () => {
    expect(server.name).toBe(pkg.mcpName)
    expect(server.version).toBe(pkg.version)
    expect(server.packages).toHaveLength(2)
    expect(server.packages[0]).toMatchObject({
      registryType: "npm",
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: "stdio" },
    })
  })

  it("names the image beside it: an OCI package of the same version, the name the registry checks in its label", () => {
    const oci = server.packages[1]
    expect(oci).toMatchObject({
      registryType: "oci",
      identifier: `ghcr.io/svc-mcp/svc-mcp:${pkg.version}`,
      runtimeHint: "docker",
      transport: { type: "stdio" },
    })
    // The image serves HTTP unless told otherwise; a client that runs it speaks stdio to it.
    expect(oci.runtimeArguments).toEqual([
      expect.objectContaining({ type: "named", name: "-e", value: "SVC_MCP_HTTP_PORT=" }),
    ])
    expect(oci.environmentVariables).toEqual(server.packages[0].environmentVariables)
    const dockerfile = Fs.readFileSync(Path.join(root, "deploy/Dockerfile"), "utf8")
    expect(dockerfile).toContain(`io.modelcontextprotocol.server.name="${server.name}"`)
    expect(dockerfile).toMatch(/ENV [\s\S]*SVC_MCP_HTTP_PORT=8765/)
  })

  it("gives each package the variables of the one list, as npm run variables writes them (format: filepath for a path)", () => {
    for (const pkg of server.packages) expect(pkg.environmentVariables).toEqual(Variables.registryEntries())
    const paths = Variables.registryEntries().filter((entry) => "format" in entry)
    expect(paths.map((entry) => entry.name)).toContain("SVC_DEFINITIONS")
    expect(paths.every((entry) => entry.format === "filepath")).toBe(true)
  })

  it("gives every variable a stdio server reads, with its description, isSecret and isRequired", () => {
    const stdio = Variables.ALL.filter((variable) => variable.httpOnly !== true)
    const given: ReadonlyArray<EnvironmentVariable> = server.packages[0].environmentVariables
    expect(given.map((variable) => variable.name)).toEqual(stdio.map((variable) => variable.name))
    for (const [i, variable] of stdio.entries()) {
      expect(given[i]?.description).toBe(variable.meaning)
      expect(given[i]?.isSecret ?? false).toBe(variable.secret ?? false)
      expect(given[i]?.isRequired ?? false).toBe(variable.required ?? false)
    }
    expect(given.filter((variable) => variable.isSecret).map((variable) => variable.name)).toEqual([
      "SVC_API_KEY",
      "SVC_API_SECRET",
      "SVC_INIT_ADMIN_PASSWORD",
      "SVC_AUDIT_KEY",
    ])
  })

  it("describes the remote form: Streamable HTTP at /mcp with the bearer token and the per-request key as secrets", () => {
    expect(server.remotes).toHaveLength(1)
    const [remote] = server.remotes
    expect(remote.type).toBe("streamable-http")
    expect(new URL(remote.url.replace("{host}", "mcp.example.com")).pathname).toBe("/mcp")
    const headers = new Map(remote.headers.map((header: { name: string }) => [header.name, header]))
    expect(headers.get("Authorization")).toMatchObject({ value: "Bearer {token}", isRequired: true, isSecret: true })
    expect(headers.get("X-Svc-Api-Key")).toMatchObject({ isSecret: true })
    expect(headers.get("X-Svc-Api-Secret")).toMatchObject({ isSecret: true })
  })
})
