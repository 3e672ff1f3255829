/**
 * A minted person's tools/list leaves out what their calls are refused whatever their level: the
 * 20 endpoints that change who may do what, and the runs that cannot be read first (a batch of
 * procedures, an action's run or a batch of them), and the creations the service reserves to its
 * admins. Anyone else with the same reach sees them.
 */
import { describe, expect, it } from "vitest"
import * as Listing from "../../../src/Mcp/Server/Listing.js"
import * as Reach from "../../../src/Tools/Policy/Reach.js"

const endpointsOf = (tools: ReturnType<typeof Listing.narrowed>) =>
  new Set(tools.flatMap((tool) => Object.values(tool.endpoints)))

const ACCESS = [
  "CreateUserGroup",
  "UpdateUserGroup",
  "RenameUserGroup",
  "DeleteUserGroup",
  "AddUserToUserGroup",
  "RemoveUserFromUserGroup",
  "SetUsersInUserGroup",
  "SetEveryoneUserGroup",
  "UpdateUserAdmin",
  "UpdateUserBasePermissions",
  "UpdatePermissionOnTarget",
  "UpdatePermissionOnResourceType",
  "CreateLocalUser",
  "CreateServiceUser",
  "DeleteUser",
  "CreateApiKeyForServiceUser",
  "DeleteApiKeyForServiceUser",
  "CreateOnboardingKey",
  "UpdateOnboardingKey",
  "DeleteOnboardingKey",
]
const UNREAD = ["BatchRunProcedure", "RunAction", "BatchRunAction"]
/** The creations the service reserves to its admins, which a minted service user never is. */
const ADMINS = [
  "CreateVariable",
  "CreateGitProviderAccount",
  "CreateImageRegistryAccount",
  "CreateServer",
  "CreateBuild",
  "CopyServer",
  "CopyBuild",
]

describe("a minted person's tool list", () => {
  it("leaves out the access endpoints and the unread runs; the same reach unminted keeps them", () => {
    const everyone = endpointsOf(Listing.narrowed(Reach.all, Listing.FULL))
    const minted = endpointsOf(Listing.narrowed(Reach.all, { ...Listing.FULL, minted: true }))
    for (const endpoint of [...ACCESS, ...UNREAD]) {
      expect(everyone.has(endpoint), endpoint).toBe(true)
      expect(minted.has(endpoint), endpoint).toBe(false)
    }
    // Nothing else is left out but the creations reserved to admins.
    expect([...everyone].filter((e) => !minted.has(e)).sort()).toEqual([...ACCESS, ...UNREAD, ...ADMINS].sort())
    expect(minted.has("RunProcedure")).toBe(true)
    expect(minted.has("DeployStack")).toBe(true)
  })

  it("is made once per reach, minted apart", () => {
    let made = 0
    const list = Listing.memo((reach) => {
      made++
      return Listing.narrowed(Reach.all, reach)
    })
    const plain = list(Listing.FULL)
    const minted = list({ ...Listing.FULL, minted: true })
    expect(list({ ...Listing.FULL, minted: true })).toBe(minted)
    expect(plain).not.toBe(minted)
    expect(made).toBe(2)
  })
})
