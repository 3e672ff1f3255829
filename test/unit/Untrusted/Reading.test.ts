/**
 * What opens the guard's window and what the guard calls it (Untrusted/Reading.ts):
 * text from outside the service and the user does, the service's own
 * bookkeeping in a change's Update does not; each untrusted field has words a
 * user would say, and the reading names its subject as the call named it.
 */
import { describe, expect, it } from "@effect/vitest"
import { RULES } from "../../../src/Untrusted/Fields.js"
import type { Found } from "../../../src/Untrusted/Locate.js"
import { NOUNS, QUIET, readingOf } from "../../../src/Untrusted/Reading.js"

const log = (field: string): Found => ({ path: ["logs", 0, field], definition: "Log", field: `logs[].${field}` })

describe("what opens the guard's window", () => {
  it("every untrusted field of every rule has words of its own or its definition's", () => {
    for (const rule of RULES) {
      const nouns = NOUNS[rule.definition]
      expect(nouns, rule.definition).toBeDefined()
      for (const field of rule.fields)
        expect(nouns?.[field] ?? nouns?.["*"], `${rule.definition}.${field}`).toMatch(/^the /)
    }
    expect(Object.keys(NOUNS).sort()).toEqual(RULES.map((rule) => rule.definition).sort())
  })

  it("a change's own Update lines open none; an execution's output does, and so does the same Log read", () => {
    expect(QUIET.map((quiet) => [quiet.endpoints, quiet.definition])).toEqual([
      [["write/Rename*", "write/Update*", "write/Create*", "write/Copy*", "write/Delete*"], "Log"],
    ])
    const rename = { id: "docs-image", name: "docs-site-image" }
    expect(readingOf([log("stdout"), log("command")], rename, "write/RenameBuild")).toBeUndefined()
    // A change through the service that runs a command of its own (a sync's commit) is not bookkeeping.
    expect(readingOf([log("stderr")], { sync: "estate-sync" }, "write/CommitSync")).toBe("the logs of sync estate-sync")
    expect(readingOf([log("stdout")], { stack: "web" }, "execute/DeployStack")).toBe("the output of deploy_stack web")
    expect(readingOf([log("stdout")], { id: "u-1" }, "read/GetUpdate")).toBe("the logs of update u-1")
    // A change whose answer carries text from outside (a build's commit message) still opens it.
    const message: Found = { path: ["info", "latest_message"], definition: "BuildInfo", field: "info.latest_message" }
    expect(readingOf([message], { id: "api" }, "write/UpdateBuild")).toBe("the commit messages of build api")
  })
})

describe("the reading in a user's words", () => {
  it("names the subject, then the rest in parentheses", () => {
    expect(readingOf([log("stdout")], { stack: "web", services: ["worker"] }, "read/GetStackLog")).toBe(
      "the logs of stack web (service worker)",
    )
    expect(readingOf([log("stdout")], { stack: "web", services: [] }, "read/GetStackLog")).toBe("the logs of stack web")
    expect(readingOf([log("stdout")], { server: "prod-01", container: "api" }, "read/GetContainerLog")).toBe(
      "the logs of container api (server prod-01)",
    )
    expect(
      readingOf([log("stdout")], { stack: "web", service: "worker", command: "sh" }, "execute/RunStackService"),
    ).toBe("the output of deploy_stack_service web (service worker)")
    expect(readingOf([log("stdout")], { pattern: "web-*" }, "execute/BatchDeployStack")).toBe(
      "the output of batch_deploy_stack web-*",
    )
  })

  it("says what of a record was read: files, commit messages, pending changes", () => {
    const change: Found = {
      path: ["info", "resource_updates", 0, "data", "data"],
      definition: "DiffData",
      field: "info.resource_updates[].data.data",
    }
    expect(readingOf([change], { sync: "estate-sync" }, "read/GetResourceSync")).toBe(
      "the pending changes of sync estate-sync",
    )
    const stack = (field: string): Found => ({
      path: ["info", field, 0, "contents"],
      definition: "StackInfo",
      field: `info.${field}`,
    })
    expect(readingOf([stack("remote_contents")], { stack: "web" }, "read/GetStack")).toBe(
      "the file contents of stack web",
    )
    expect(
      readingOf(
        [
          stack("remote_contents"),
          { path: ["info", "latest_message"], definition: "StackInfo", field: "info.latest_message" },
        ],
        { stack: "web" },
        "read/GetStack",
      ),
    ).toBe("the file contents and the commit messages of stack web")
  })
})
