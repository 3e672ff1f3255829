/**
 * What the guard holds (Untrusted/Hold.ts): every selector of every changing tool
 * is decided by a rule of the table, and the decisions below are written out
 * by hand, as docs/untrusted-text.md lists them, so that a change of the table
 * shows here. SVC_GUARD_HOLD widens and narrows it; ask-all holds everything.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as GuardSettings from "../../../src/Settings/Guard.js"
import { all } from "../../../src/Tools/Catalog/Definitions.js"
import { all as reachAll } from "../../../src/Tools/Policy/Reach.js"
import { decider } from "../../../src/Untrusted/Guard.js"
import { ruleOf } from "../../../src/Untrusted/Hold.js"

const changing = all.filter((tool) => tool.group !== "read")

const decide = (hold = "", mode: GuardSettings.GuardMode = "ask") =>
  decider({ mode, windowMs: 1_000, hold: Either.getOrThrow(GuardSettings.parseHold(hold)) })

const endpointOf = (tool: string, selector: string) => {
  const found = changing.find((t) => t.name === tool)?.endpoints[selector]
  if (found === undefined) throw new Error(`${tool} has no selector ${selector}`)
  return found
}

const held = (tool: string, selector: string, hold = "", mode: GuardSettings.GuardMode = "ask") =>
  decide(hold, mode)(tool, selector, endpointOf(tool, selector)).held

describe("what the guard holds", () => {
  it("every selector of every changing tool is decided by a rule of the table", () => {
    const undecided = changing.flatMap((tool) =>
      Object.entries(tool.endpoints)
        .filter(([, endpoint]) => ruleOf(tool.name, endpoint) === undefined)
        .map(([selector]) => `${tool.name}:${selector}`),
    )
    expect(undecided).toEqual([])
    expect(changing.map((tool) => tool.name).sort()).toEqual([
      "svc_copy",
      "svc_create",
      "svc_delete",
      "svc_execute",
      "svc_rename",
      "svc_update",
    ])
  })

  it("holds what loses data or availability, changes what runs next, runs code, or touches credentials", () => {
    const heldOnes = [
      ["svc_delete", "stack"],
      ["svc_delete", "tag"],
      ["svc_rename", "build"],
      ["svc_update", "stack"],
      ["svc_update", "variable"],
      ["svc_create", "variable"],
      ["svc_create", "deployment"],
      ["svc_create", "procedure"],
      ["svc_execute", "destroy_stack"],
      ["svc_execute", "prune_system"],
      ["svc_execute", "run_server_prune_images"],
      ["svc_execute", "stop_stack"],
      ["svc_execute", "pause_container"],
      ["svc_execute", "cancel_build"],
      ["svc_execute", "run_procedure"],
      ["svc_execute", "run_action"],
      ["svc_execute", "deploy_stack_service"],
      ["svc_execute", "run_server_run_command"],
      ["svc_execute", "rotate_core_keys"],
      ["svc_execute", "create_swarm_secret"],
      ["svc_execute", "remove_swarm_stacks"],
      ["svc_execute", "batch_destroy_stack"],
      ["svc_execute", "send_alert"],
      ["svc_execute", "global_auto_update"],
      ["svc_create", "tag"],
    ] as const
    for (const [tool, selector] of heldOnes)
      expect([tool, selector, held(tool, selector)]).toEqual([tool, selector, true])
  })

  it("lets through what only runs again what is configured, and a tag's colour", () => {
    const through = [
      ["svc_execute", "deploy_stack"],
      ["svc_execute", "deploy"],
      ["svc_execute", "batch_deploy_stack_if_changed"],
      ["svc_execute", "restart_stack"],
      ["svc_execute", "start_container"],
      ["svc_execute", "unpause_deployment"],
      ["svc_execute", "pull_stack"],
      ["svc_execute", "run_build"],
      ["svc_execute", "run_server_refresh_containers"],
      ["svc_execute", "backup_core_database"],
      ["svc_update", "tag"],
      ["svc_copy", "stack"],
    ] as const
    for (const [tool, selector] of through)
      expect([tool, selector, held(tool, selector)]).toEqual([tool, selector, false])
  })

  it("SVC_GUARD_HOLD widens and narrows the table, first pattern first; ask-all holds every change", () => {
    expect(held("svc_execute", "deploy_stack", "svc_execute:deploy*")).toBe(true)
    expect(held("svc_execute", "deploy", "svc_execute:deploy*")).toBe(true)
    expect(held("svc_execute", "restart_stack", "svc_execute:deploy*")).toBe(false)
    expect(held("svc_rename", "build", "-svc_rename:*")).toBe(false)
    expect(held("svc_rename", "build", "svc_rename:build,-svc_rename:*")).toBe(true)
    expect(decide("-svc_delete:tag")("svc_delete", "tag", "DeleteTag")).toEqual({
      held: false,
      why: "SVC_GUARD_HOLD (-svc_delete:tag)",
    })
    expect(decide("")("svc_delete", "stack", "DeleteStack")).toEqual({ held: true, why: "loses data" })
    for (const tool of changing) {
      for (const selector of tool.selectors) expect(held(tool.name, selector, "", "ask-all")).toBe(true)
    }
  })
})

describe("what the guard holds of SVC_REACH=all's selectors", () => {
  const reaching = reachAll.filter((tool) => tool.group !== "read")
  const heldAll = (tool: string, selector: string) => {
    const found = reaching.find((t) => t.name === tool)
    const endpoint = found?.endpoints[selector]
    if (found === undefined || endpoint === undefined) throw new Error(`${tool} has no selector ${selector}`)
    return decide()(tool, selector, endpoint)
  }

  it("every one of their changes is decided by a rule of the table", () => {
    const undecided = reaching.flatMap((tool) =>
      Object.entries(tool.endpoints)
        .filter(([, endpoint]) => ruleOf(tool.name, endpoint) === undefined)
        .map(([selector]) => `${tool.name}:${selector}`),
    )
    expect(undecided).toEqual([])
  })

  it("holds deleting users, keys and permissions, admin rights, file writes and commits; not refreshes and checks", () => {
    const heldOnes = [
      ["svc_delete", "user", "touches credentials or permissions"],
      ["svc_delete", "api_key_for_service_user", "touches credentials or permissions"],
      ["svc_delete", "onboarding_key", "touches credentials or permissions"],
      ["svc_delete", "image_registry_account", "loses data"],
      ["svc_delete", "batch_all_terminals", "loses data"],
      ["svc_update", "user_admin", "touches credentials or permissions"],
      ["svc_update", "user_base_permissions", "touches credentials or permissions"],
      ["svc_update", "permission_on_target", "touches credentials or permissions"],
      ["svc_update", "permission_on_resource_type", "touches credentials or permissions"],
      ["svc_update", "user_group_add_user", "touches credentials or permissions"],
      ["svc_update", "user_group_everyone", "touches credentials or permissions"],
      ["svc_update", "variable_is_secret", "touches credentials or permissions"],
      ["svc_update", "server_public_key", "touches credentials or permissions"],
      ["svc_update", "stack_file", "changes what runs next time"],
      ["svc_update", "build_file", "changes what runs next time"],
      ["svc_update", "sync_resource_file", "changes what runs next time"],
      ["svc_create", "api_key_for_service_user", "touches credentials or permissions"],
      ["svc_create", "local_user", "touches credentials or permissions"],
      ["svc_create", "service_user", "touches credentials or permissions"],
      ["svc_create", "terminal", "runs code"],
      ["svc_create", "network", "changes what runs next time"],
      ["svc_rename", "sync_resource", "changes what runs next time"],
      ["svc_execute", "commit_sync", "changes what runs next time"],
      ["svc_execute", "rotate_server_keys", "touches credentials or permissions"],
      // Free text a later conversation reads as the team's own: laundered, it would carry what was read.
      ["svc_update", "resource_meta", "writes text others will read"],
      ["svc_update", "variable_description", "writes text others will read"],
      ["svc_update", "service_user_description", "writes text others will read"],
      ["svc_create", "tag", "writes text others will read"],
    ] as const
    for (const [tool, selector, why] of heldOnes) {
      expect([tool, selector, heldAll(tool, selector)]).toEqual([tool, selector, { held: true, why }])
    }
    const through = [
      ["svc_update", "recently_viewed", "changes only a label"],
      ["svc_update", "tag", "changes only a label"],
      ["svc_execute", "close_alert", "changes only a label"],
      ["svc_execute", "check_stack_for_update", "runs again what is configured"],
      ["svc_execute", "batch_check_deployment_for_update", "runs again what is configured"],
      ["svc_execute", "refresh_stack_cache", "runs again what is configured"],
      ["svc_execute", "refresh_sync_pending", "runs again what is configured"],
    ] as const
    for (const [tool, selector, why] of through) {
      expect([tool, selector, heldAll(tool, selector)]).toEqual([tool, selector, { held: false, why }])
    }
  })
})
