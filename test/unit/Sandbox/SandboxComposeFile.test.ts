/**
 * The sandbox reads a compose file as docker compose does, as YAML in any of
 * its forms: the services a deploy runs, with their images, ports and named
 * volumes, are those the file declares however it is written.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ComposeFile from "../../../src/Sandbox/World/ComposeFile.js"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const FORMS: ReadonlyArray<readonly [string, string]> = [
  [
    "indented by two",
    'services:\n  alpha:\n    image: acme/alpha:1\n    ports: ["8081:80"]\n  beta:\n    image: acme/beta:2\n    volumes:\n      - beta-data:/var/lib/beta\n',
  ],
  [
    "indented by four",
    'services:\n    alpha:\n        image: acme/alpha:1\n        ports:\n            - "8081:80"\n    beta:\n        image: acme/beta:2\n        volumes: ["beta-data:/var/lib/beta"]\n',
  ],
  [
    "in flow style",
    'services: {alpha: {image: "acme/alpha:1", ports: ["8081:80"]}, beta: {image: acme/beta:2, volumes: [{type: volume, source: beta-data, target: /var/lib/beta}]}}\n',
  ],
  [
    "with an anchor, comments and a long-form port",
    "x-base: &base\n  image: acme/alpha:1\nservices: # the two\n  alpha:\n    <<: *base\n    ports:\n      - target: 80\n        published: 8081\n  beta:\n    image: 'acme/beta:2'\n    volumes:\n      - beta-data:/var/lib/beta:ro\n      - ./conf:/etc/beta\n",
  ],
]

const SERVICES = [
  {
    name: "alpha",
    image: "acme/alpha:1",
    ports: [{ IP: "0.0.0.0", PrivatePort: 80, PublicPort: 8081, Type: "tcp" }],
    volumes: [],
  },
  { name: "beta", image: "acme/beta:2", ports: [], volumes: ["beta-data"] },
]

describe("a compose file, read as YAML", () => {
  it.effect("gives the same services, images, ports and volumes in each of its forms", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => ComposeFile.load())
      for (const [form, contents] of FORMS) expect(ComposeFile.servicesIn(contents), form).toEqual(SERVICES)
      // What is not a compose file has no services.
      for (const text of ["services: [", "just text", "services: 3", ""]) {
        expect(ComposeFile.servicesIn(text), text).toEqual([])
      }
    }),
  )

  it.scopedLive("a stack deploys the services its written file declares, in each form", () =>
    Effect.gen(function* () {
      for (const [form, contents] of FORMS) {
        const { ok, run } = Sandboxes.asAdmin(yield* Sandboxes.scoped({ timing: { completeMs: 20 } }))
        yield* ok("write/WriteStackFileContents", { stack: "web", file_path: "compose.yaml", contents })
        expect((yield* run("DeployStack", { stack: "web" })).success, form).toBe(true)
        const services = yield* ok("read/ListStackServices", { stack: "web" })
        expect(
          services.map((s: Any) => [s.service, s.image, s.state]),
          form,
        ).toEqual([
          ["alpha", "acme/alpha:1", "Running"],
          ["beta", "acme/beta:2", "Running"],
        ])
        const containers = yield* ok("read/ListContainers", { server: "prod-01" })
        const beta = containers.find((c: Any) => c.name === "web-beta-1")
        expect(containers.find((c: Any) => c.name === "web-alpha-1").ports, form).toEqual(SERVICES[0]?.ports)
        expect(beta.volumes, form).toEqual(["web_beta-data"])
        // The old services are gone; the images and volumes in use are listed in use.
        expect(containers.map((c: Any) => c.name)).not.toContain("web-worker-1")
        const images = yield* ok("read/ListImages", { server: "prod-01" })
        expect(images.find((i: Any) => i.name === "acme/beta:2")?.in_use, form).toBe(true)
        const volumes = yield* ok("read/ListVolumes", { server: "prod-01" })
        expect(
          volumes.find((v: Any) => v.name === "web_beta-data"),
          form,
        ).toMatchObject({ in_use: true })
      }
    }),
  )
})
