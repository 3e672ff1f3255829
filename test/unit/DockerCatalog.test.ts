/**
 * The Docker MCP catalog's entry (deploy/docker-mcp/server.yaml), in the catalog's format: the image
 * the registry entry names, built by the recipe it points at, run over stdio, and every variable it
 * offers one the server reads, secret where the server's list says so, described as --help does.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Yaml from "yaml"
import * as Variables from "../../src/Cli/Variables.js"

const root = Path.resolve(Path.dirname(import.meta.dirname), "..")
const read = (file: string) => Fs.readFileSync(Path.join(root, file), "utf8")

interface Entry {
  readonly name: string
  readonly image: string
  readonly type: string
  readonly meta: { readonly category: string; readonly tags: ReadonlyArray<string> }
  readonly about: { readonly title: string; readonly description: string; readonly icon: string }
  readonly source: { readonly project: string; readonly branch: string; readonly dockerfile: string }
  readonly config: {
    readonly description: string
    readonly secrets: ReadonlyArray<{ readonly name: string; readonly env: string; readonly example: string }>
    readonly env: ReadonlyArray<{ readonly name: string; readonly example: string; readonly value: string }>
    readonly parameters: {
      readonly type: "object"
      readonly properties: Record<string, { readonly type: string; readonly description: string }>
      readonly required: ReadonlyArray<string>
    }
  }
}

const entry: Entry = Yaml.parse(read("deploy/docker-mcp/server.yaml"))
const server = JSON.parse(read("server.json"))
const dockerfile = read("deploy/Dockerfile")
const byName = new Map(Variables.ALL.map((variable) => [variable.name, variable]))
const PORT = "SVC_MCP_HTTP_PORT"

describe("the Docker MCP catalog's entry", () => {
  it("has the catalog's fields, a server of the registry entry's name and description", () => {
    expect(Object.keys(entry).sort()).toEqual(["about", "config", "image", "meta", "name", "source", "type"])
    expect(entry.type).toBe("server")
    expect(entry.name).toBe(server.title)
    expect(entry.about.description).toBe(server.description)
    expect(entry.meta.tags).toContain(entry.meta.category)
    expect(new URL(entry.about.icon).protocol).toBe("https:")
  })

  it("names the image the registry entry's OCI package names, built by the recipe it points at", () => {
    const oci = server.packages.find((p: { registryType: string }) => p.registryType === "oci")
    expect(`${entry.image}:${server.version}`).toBe(oci.identifier)
    expect(Fs.existsSync(Path.join(root, entry.source.dockerfile))).toBe(true)
    expect(entry.source.dockerfile).toBe("deploy/Dockerfile")
    expect(dockerfile).toContain(`org.opencontainers.image.source="${entry.source.project}"`)
  })

  it("runs the image over stdio: the port the recipe sets for HTTP is set empty, which the server reads as unset", () => {
    expect(dockerfile).toMatch(new RegExp(`ENV [\\s\\S]*${PORT}=8765`))
    expect(entry.config.env.find((env) => env.name === PORT)).toEqual({ name: PORT, example: "", value: "" })
    expect(byName.get(PORT)?.httpOnly).toBe(true)
  })

  it("offers as secrets exactly the service's credentials the server keeps secret, none elsewhere", () => {
    const secrets = entry.config.secrets.map((secret) => secret.env)
    for (const name of secrets) expect(byName.get(name)?.secret, name).toBe(true)
    expect(secrets).toEqual(["SVC_API_KEY", "SVC_API_SECRET", "SVC_INIT_ADMIN_PASSWORD"])
    for (const secret of entry.config.secrets) {
      expect(secret.name).toBe(`svc-mcp.${secret.env.replace(/^SVC_/, "").toLowerCase()}`)
    }
    for (const env of entry.config.env) expect(byName.get(env.name)?.secret ?? false, env.name).toBe(false)
  })

  it("offers variables a stdio server reads, each from a parameter described as --help describes it", () => {
    const { properties, required } = entry.config.parameters
    const offered = entry.config.env.filter((env) => env.name !== PORT)
    for (const env of offered) {
      const variable = byName.get(env.name)
      expect(variable, env.name).toBeDefined()
      expect(variable?.httpOnly ?? false, env.name).toBe(false)
      const parameter = env.name.replace(/^SVC_/, "").toLowerCase()
      expect(env.value).toBe(`{{svc-mcp.${parameter}}}`)
      expect(properties[parameter]).toEqual({ type: "string", description: variable?.meaning })
    }
    expect(Object.keys(properties).sort()).toEqual(
      offered.map((env) => env.name.replace(/^SVC_/, "").toLowerCase()).sort(),
    )
    const requiredNames = Variables.ALL.filter((variable) => variable.required).map((variable) => variable.name)
    expect(required.map((parameter) => `SVC_${parameter.toUpperCase()}`)).toEqual(requiredNames)
  })
})
