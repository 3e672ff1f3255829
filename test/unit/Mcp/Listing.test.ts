/**
 * A signed-in person's tool list, and what is refused before a question: the selectors the
 * service would refuse them are left out (beyond their level; for a minted service user, never an
 * admin, the creations the service reserves to admins), and a call naming one anyway is refused
 * with the reason.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Listing from "../../../src/Mcp/Server/Listing.js"
import * as Definitions from "../../../src/Tools/Catalog/Definitions.js"

const toolOf = (name: string) => {
  const found = Definitions.all.find((tool) => tool.name === name)
  if (found === undefined) throw new Error(name)
  return found
}

const selectors = (reach: Listing.Reach, name: string) =>
  Listing.narrowed(Definitions.all, reach).find((tool) => tool.name === name)?.selectors ?? []

describe("a person's tool list", () => {
  it("leaves out, for a minted Write person, the creations the service reserves to admins", () => {
    const minted = { tier: 2, level: 2, minted: true }
    expect(selectors(minted, "svc_create")).toContain("stack")
    expect(selectors(minted, "svc_create")).toContain("deployment")
    for (const reserved of [
      "variable",
      "user_group",
      "server",
      "build",
      "git_provider_account",
      "image_registry_account",
    ]) {
      expect(selectors(minted, "svc_create")).not.toContain(reserved)
    }
    expect(selectors(minted, "svc_copy")).not.toContain("server")
    expect(selectors(minted, "svc_copy")).toContain("stack")
    // A person with a key of their own (their admin's, perhaps) keeps every creation.
    expect(selectors(Listing.FULL, "svc_create")).toContain("variable")
  })

  it("says why the service would refuse a call beyond the person's level or an admin's creation", () => {
    const reader = { tier: 2, level: 0, minted: true }
    expect(Listing.beyondOf(toolOf("svc_delete"), "stack", reader)).toBe(
      "the service user your calls go as has the level Read, which does not reach write/DeleteStack: the service would refuse it",
    )
    expect(Listing.beyondOf(toolOf("svc_list"), "stack", reader)).toBeUndefined()
    expect(Listing.beyondOf(toolOf("svc_create"), "variable", { tier: 2, level: 2, minted: true })).toMatch(
      /^the service reserves CreateVariable to its admins/,
    )
    expect(Listing.beyondOf(toolOf("svc_create"), "variable", Listing.FULL)).toBeUndefined()
  })
})
