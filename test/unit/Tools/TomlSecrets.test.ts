/**
 * A secret variable's value in a TOML export (src/Tools/Sync/TomlSecrets.ts): for
 * exports written in every form TOML has for a string (basic with escapes,
 * literal, multi-line basic and literal), with decoys inside other strings, no
 * secret value survives, and what is not secret is left as it was. Each value
 * is made first and then written as TOML here, so the test knows what it reads.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { all as reachAll } from "../../../src/Tools/Policy/Reach.js"
import { HIDDEN_WHOLE, hidden, hideSecrets } from "../../../src/Tools/Sync/TomlSecrets.js"
import type { Made as ToolSuccess } from "../../support/Answers.js"
import { success } from "../../support/Answers.js"
import * as BlockCounts from "../../support/BlockCounts.js"
import { property } from "../../support/Property.js"
import { runs } from "../../support/Runs.js"
import { FORMS, type Form, written } from "../../support/TomlText.js"

/** An export read, for its work to be counted (test/support/BlockCounts.ts). */
const READ = `export { hideSecrets as run } from "./src/Tools/Sync/TomlSecrets.ts"`

/** A secret: a distinctive core, with characters around it that need escaping in some forms. */
const secret = FastCheck.tuple(
  FastCheck.stringMatching(/^[A-Za-z0-9]{12,24}$/),
  FastCheck.constantFrom("", '"', "\\", "'", "\n", "\t", "#", "=", "[[variable]]", '"""', "é"),
  FastCheck.constantFrom("", '"', "\\", "\n", "'''", " # not a comment"),
).map(([core, before, after]) => ({ core: `S3CR3T${core}`, value: `${before}S3CR3T${core}${after}` }))

/** Where `is_secret` stands in a secret variable's table: before its value, after it, or nowhere. */
const marking = FastCheck.constantFrom("before", "after", "absent")

const variable = FastCheck.record({
  name: FastCheck.stringMatching(/^[A-Z][A-Z_]{2,12}$/),
  secret,
  form: FastCheck.constantFrom(...FORMS),
  marking,
  plain: FastCheck.boolean(),
  plainValue: FastCheck.stringMatching(/^[a-z0-9-]{3,12}$/),
})

/** A resource before the variables, whose description is a decoy: a variable table inside a string. */
const resource = FastCheck.record({
  name: FastCheck.stringMatching(/^[a-z][a-z0-9-]{2,12}$/),
  decoy: FastCheck.constantFrom<Form>("basic", "multiline", "multiline-literal"),
})

const DECOY = '\n[[variable]]\nname = "X"\nvalue = "decoy-visible"\nis_secret = true\n'

const exportOf = (resources: ReadonlyArray<{ name: string; decoy: Form }>, variables: ReadonlyArray<Variable>) => {
  const parts = resources.map((r) =>
    [
      "[[stack]]",
      `name = "${r.name}"`,
      `description = ${written(DECOY, r.decoy) ?? written(DECOY, "basic")}`,
      "",
      "[stack.config]",
      'server = "prod-01"',
    ].join("\n"),
  )
  for (const v of variables) {
    const lines = ["[[variable]]", `name = "${v.name}"`]
    if (v.plain) {
      lines.push(`value = "${v.plainValue}"`, "is_secret = false")
    } else {
      const value = written(v.secret.value, v.form) ?? written(v.secret.value, "basic")
      if (v.marking === "before") lines.push("is_secret = true")
      lines.push(`value = ${value}`)
      if (v.marking === "after") lines.push("is_secret = true")
    }
    parts.push(lines.join("\n"))
  }
  return parts.join("\n\n##\n\n")
}

interface Variable {
  readonly name: string
  readonly secret: { readonly core: string; readonly value: string }
  readonly form: Form
  readonly marking: string
  readonly plain: boolean
  readonly plainValue: string
}

describe("a TOML export's secret variables", () => {
  property(
    "no secret value survives, in any string form; plain values and decoys inside other strings are left as they were",
    {
      resources: FastCheck.array(resource, { maxLength: 3 }),
      variables: FastCheck.array(variable, { minLength: 1, maxLength: 5 }),
    },
    ({ resources, variables }) => {
      const toml = exportOf(resources, variables)
      const out = hideSecrets(toml)
      for (const v of variables) {
        if (v.plain) expect(out).toContain(`name = "${v.name}"\nvalue = "${v.plainValue}"\nis_secret = false`)
        else {
          expect(out, toml).not.toContain(v.secret.core)
          expect(out).not.toContain(v.secret.value)
        }
      }
      // Text inside another string is no table: a description that reads as a variable is left whole.
      const decoys = resources.length
      expect(out.split("decoy-visible").length - 1).toBe(decoys)
      // Nothing but the values changes: every line that is not a value's is kept.
      const headers = (text: string) => text.match(/^\[\[variable\]\]$/gm)?.length ?? 0
      expect(headers(out)).toBe(headers(toml))
      expect(out.split('"[redacted]"').length - 1).toBe(variables.filter((v) => !v.plain).length)
    },
    { fastCheck: { numRuns: runs(300) } },
  )

  it("a value cut short (an unterminated string) hides the text whole; a text of no variable is the same string", () => {
    expect(hideSecrets('[[variable]]\nname = "A"\nvalue = """abc\nS3CR3T')).toBe(HIDDEN_WHOLE)
    const none = '[[stack]]\nname = "web"\ndescription = "no variables here"'
    expect(hideSecrets(none)).toBe(none)
    // Quoted keys are keys.
    expect(hideSecrets("[[variable]]\n\"value\" = 'x-secret'\n'is_secret' = true")).not.toContain("x-secret")
  })

  it("a sync's files, written by hand, hide what says is_secret = true and nothing else", () => {
    const file = [
      '[[variable]]\nname = "A"\nvalue = "plain-a"',
      '[[variable]]\nname = "B"\nvalue = """secret-b"""\nis_secret = true',
      "[[variable]]\nname = \"C\"\nis_secret = false\nvalue = 'plain-c'",
    ].join("\n\n")
    const out = hidden(file, "ResourceSyncInfo", ["info", "remote_contents", 0, "contents"])
    expect(out).toContain('value = "plain-a"')
    expect(out).not.toContain("secret-b")
    expect(out).toContain("value = 'plain-c'")
    // An export's table that says nothing is taken for secret.
    expect(hideSecrets(file)).not.toContain("plain-a")
    // A sync's messages are no TOML: left as they are, whatever words they hold.
    const message = "Rotate the variable DB_PASSWORD: value = [oops"
    expect(hidden(message, "ResourceSyncInfo", ["info", "pending_message"])).toBe(message)
  })

  it("reads a long export in work linear in it", async () => {
    const table = '[[variable]]\nname = "V"\nvalue = """a\\"b\nc"""\nis_secret = true\n\n'
    // The blocks of code its reading runs and the characters its builtins read (test/support/BlockCounts.ts), counted, not timed.
    const [small = 0, large = 0] = await BlockCounts.counts(READ, [table.repeat(100), table.repeat(800)])
    expect(small).toBeGreaterThan(100)
    // Eight times the text: a linear reader does eight times the work, a quadratic one sixty-four times.
    expect(large).toBeLessThan(small * 10)
  })
})

describe("svc_get's TOML exports, rendered", () => {
  const svcGet = reachAll.find((tool) => tool.name === "svc_get")
  const answer = (toml: string): ToolSuccess => ({
    tool: "svc_get",
    wait: false,
    schema: false,
    selectorKey: "resource_type",
    selector: "all_resources_toml",
    endpoint: "read/ExportAllResourcesToToml",
    body: { include_variables: true },
    data: { toml },
    text: JSON.stringify({ toml }),
  })
  const toml = '[[variable]]\nname = "DB_PASSWORD"\nvalue = "s3cr3t-db-passw0rd"\nis_secret = true'

  it("hides a secret variable's value in the text and structuredContent, unless SVC_REVEAL_SECRETS", () => {
    if (svcGet === undefined) throw new Error("svc_get is not among SVC_REACH=all's tools")
    const hidden = success(svcGet, answer(toml), { maxOutputChars: 50_000, revealSecrets: false })
    expect(hidden.text).not.toContain("s3cr3t-db-passw0rd")
    expect(JSON.stringify(hidden.structuredData)).not.toContain("s3cr3t-db-passw0rd")
    expect((hidden.structuredData as { toml: string }).toml).toContain('name = "DB_PASSWORD"\nvalue = "[redacted]"\n')
    const shown = success(svcGet, answer(toml), { maxOutputChars: 50_000, revealSecrets: true })
    expect(shown.structuredData).toEqual({ toml })
  })
})

describe("a sync's plan, rendered", () => {
  const svcGet = reachAll.find((tool) => tool.name === "svc_get")
  const SECRET_NOW = "s3cr3t-db-passw0rd"
  const SECRET_NEXT = "n3xt-s3cr3t-value"
  const file = `[[variable]]\nname = "DB_PASSWORD"\nvalue = "${SECRET_NEXT}"\nis_secret = false\n\n[[variable]]\nname = "LOG_LEVEL"\nvalue = "debug"\n`
  const sync = {
    name: "estate-sync",
    info: {
      remote_contents: [{ resource_path: "", path: "vars.toml", contents: file }],
      variable_updates: [
        {
          type: "Update",
          data: {
            current: `[[variable]]\nname = "DB_PASSWORD"\nvalue = "${SECRET_NOW}"\n`,
            proposed: `variable = [{ name = "DB_PASSWORD", "v\\u0061lue" = "${SECRET_NEXT}", is_secret = false }]`,
          },
        },
        {
          type: "Update",
          data: {
            current: '[[variable]]\nname = "LOG_LEVEL"\nvalue = "info"\n',
            proposed: '[[variable]]\nname = "LOG_LEVEL"\nvalue = "debug"\n',
          },
        },
        {
          type: "Create",
          data: { name: "NEW_KEY", proposed: '[[variable]]\nname = "NEW_KEY"\nvalue = "k3y"\nis_secret = true' },
        },
      ],
    },
  }
  const answer = (fields: ReadonlyArray<string> | undefined, atService?: ReadonlyMap<string, string>): ToolSuccess => ({
    tool: "svc_get",
    wait: false,
    schema: false,
    selectorKey: "resource_type",
    selector: "sync_resource",
    endpoint: "read/GetResourceSync",
    body: { sync: "estate-sync" },
    data: sync,
    text: JSON.stringify(sync),
    ...(fields === undefined ? {} : { fields }),
    ...(atService === undefined ? {} : { names: { variable: atService } }),
  })
  const AT_SERVICE = new Map([
    ["DB_PASSWORD", "secret"],
    ["LOG_LEVEL", "plain"],
  ])
  const render = (
    fields: ReadonlyArray<string> | undefined,
    atService?: ReadonlyMap<string, string>,
    reveal = false,
  ) => {
    if (svcGet === undefined) throw new Error("svc_get is not among SVC_REACH=all's tools")
    const rendered = success(svcGet, answer(fields, atService), { maxOutputChars: 50_000, revealSecrets: reveal })
    return `${rendered.text}\n${JSON.stringify(rendered.structuredData)}`
  }

  it("hides a variable the service holds secret in both texts of its change and in the files, whatever the files say", () => {
    for (const fields of [undefined, ["info.variable_updates"], ["*"], ["info"]]) {
      const shown = render(fields, AT_SERVICE)
      expect(shown, String(fields)).not.toContain(SECRET_NOW)
      expect(shown, String(fields)).not.toContain(SECRET_NEXT)
      expect(shown, String(fields)).not.toContain("k3y")
    }
    const texts = render(["info.variable_updates", "info.remote_contents"], AT_SERVICE)
    // The texts are kept as they were written, the values alone replaced; a new value says it is new.
    expect(texts).toContain('value = \\"[redacted]\\"')
    expect(texts).toContain('\\"v\\\\u0061lue\\" = \\"[redacted: a new value]\\"')
    // A variable the service holds plain shows its values, in the plan and the files.
    expect(texts).toContain('value = \\"info\\"')
    expect(texts).toContain('value = \\"debug\\"')
    // The plan at a glance says the secret's value changes, not from what or to what.
    const glance = render(undefined, AT_SERVICE)
    expect(glance).toContain('["value","[redacted]","[redacted: a new value]"]')
    expect(glance).toContain('["value","info","debug"]')
  })

  it("where the service could not be asked, every variable it may hold is secret; SVC_REVEAL_SECRETS shows them", () => {
    const unasked = render(["info"])
    for (const value of [SECRET_NOW, SECRET_NEXT, '\\"info\\"', '\\"debug\\"']) expect(unasked).not.toContain(value)
    const revealed = render(["info"], undefined, true)
    expect(revealed).toContain(SECRET_NOW)
    expect(revealed).toContain(SECRET_NEXT)
  })
})
