/**
 * The resource types a policy pattern names after `@` (src/Settings/Touches.ts) are the table of
 * kinds' (src/Kinds/Kinds.ts): every kind a ResourceTarget names but the server, the swarm and the
 * builder, which `server:`, `swarm:` and `builder:` name with what is on them; each spelled by its
 * word, the tools' word or its type's, and no other kind.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Kinds from "../../../src/Kinds/Kinds.js"
import * as Touches from "../../../src/Settings/Touches.js"

const KINDS = Object.entries(Kinds.KINDS) as ReadonlyArray<[string, Kinds.Kind]>
/** The kinds a ResourceTarget names, as the table holds them: paged, typed, named. */
const RESOURCES = KINDS.filter(([, kind]) => kind.paged && kind.type !== undefined && kind.names !== undefined)
const PLACES = ["server", "swarm", "builder"]

const resourceType = (text: string): string | undefined => {
  const parsed = Touches.parse(text)
  return Either.isRight(parsed) && parsed.right._tag === "Resource" ? parsed.right.type : undefined
}

describe("a pattern's `@` types, read from the table of kinds", () => {
  it("are the table's resources but the server, the swarm and the builder, in the table's order", () => {
    expect(Touches.TYPES).toEqual(
      RESOURCES.map(([, kind]) => kind.names).filter((word) => word !== undefined && !PLACES.includes(word)),
    )
    expect(Touches.TYPES).toContain("sync")
    expect(Touches.TYPES).not.toContain("server")
    expect(Touches.TYPES).not.toContain("builder")
  })

  it.each(RESOURCES.filter(([, kind]) => !PLACES.includes(kind.names ?? "")))(
    "%s: named by its word, the tools' word and its type's in snake case, each read as its word",
    (name, kind) => {
      const snake = (kind.type ?? "").replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()
      for (const spelling of [kind.names, name, snake]) expect(resourceType(`${spelling}:web-*`)).toBe(kind.names)
    },
  )

  it("reads a sync by each of its spellings, and refuses what the table has as no resource", () => {
    for (const spelling of ["sync", "sync_resource", "resource_sync"])
      expect(resourceType(`${spelling}:x`)).toBe("sync")
    for (const other of ["user", "user_group", "variable", "image_registry_account", "tags", "resource"]) {
      const parsed = Touches.parse(`${other}:x`)
      expect(Either.isLeft(parsed), other).toBe(true)
      if (Either.isLeft(parsed)) expect(parsed.left).toContain(`one of ${Touches.TYPES.join(", ")}`)
    }
    expect(Either.getOrThrow(Touches.parse("server:prod-*"))._tag).toBe("Server")
    expect(Either.getOrThrow(Touches.parse("swarm:edge"))._tag).toBe("Swarm")
    expect(Either.getOrThrow(Touches.parse("builder:local-*"))._tag).toBe("Builder")
  })
})
