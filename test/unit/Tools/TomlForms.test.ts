/**
 * A sync's TOML in the forms TOML 1.0 allows, generated here: variables and user
 * groups as `[[variable]]`, `[["variable"]]`, `[["v\u0061riable"]]`, or inline
 * arrays of tables on one line or several, under bare, quoted or escaped keys;
 * their fields under quoted keys and in every string form; root keys dotted, a
 * multi-line array with a `["x"],` line, comments, CRLF line ends; decoys inside
 * strings. The access check (Policy/AccessChanges.ts) names exactly the groups
 * written, and the redaction (Sync/TomlSecrets.ts) leaves a text the TOML parser
 * reads as the original with exactly the secret values replaced, all else kept.
 * The texts are made first and then written as TOML here, so the test knows
 * what they hold; the parser is asked only that each is valid TOML.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "fast-check"
import { parse } from "smol-toml"
import { declaredGroups } from "../../../src/Tools/Policy/AccessChanges.js"
import { HIDDEN_REST, HIDDEN_WHOLE, hidden, hideSecrets } from "../../../src/Tools/Sync/TomlSecrets.js"
import { runs } from "../../support/Runs.js"
import { FORMS, type Form, str } from "../../support/TomlText.js"

/** How a key is spelled: bare, quoted, or quoted with an escape. */
type Spelling = "bare" | "quoted" | "escaped"
const key = (name: string, spelling: Spelling): string =>
  spelling === "bare"
    ? name
    : spelling === "quoted"
      ? `"${name}"`
      : `"\\u${name.charCodeAt(0).toString(16).padStart(4, "0")}${name.slice(1)}"`

/** How a root array of tables is written. */
type Style = "headers" | "inline" | "inline-lines"

const secretValue = FastCheck.tuple(
  FastCheck.stringMatching(/^[A-Za-z0-9]{10,20}$/),
  FastCheck.constantFrom("", '"', "\\", "'", "\n", "#", "[[variable]]", '"""', "é", " # no comment"),
).map(([core, around]) => ({ core: `S3CR3T${core}`, value: `${around}S3CR3T${core}${around}` }))

const variable = FastCheck.record({
  name: FastCheck.stringMatching(/^[A-Z][A-Z_]{2,10}$/),
  secret: secretValue,
  plainValue: FastCheck.stringMatching(/^plain-[a-z0-9]{3,10}$/),
  marking: FastCheck.constantFrom("true", "false", "absent"),
  form: FastCheck.constantFrom(...FORMS),
  valueKey: FastCheck.constantFrom<Spelling>("bare", "quoted", "escaped"),
  comment: FastCheck.boolean(),
})
type Variable = typeof variable extends FastCheck.Arbitrary<infer A> ? A : never

const group = FastCheck.record({
  name: FastCheck.option(FastCheck.stringMatching(/^[a-z][a-z-]{2,10}$/), { nil: undefined }),
  form: FastCheck.constantFrom(...FORMS),
})
type Group = typeof group extends FastCheck.Arbitrary<infer A> ? A : never

const DECOY = '\n[[variable]]\nname = "D"\nvalue = "decoy-visible"\n[[user_group]]\nname = "decoy-group"\n'

const document = FastCheck.record({
  // No secret written inside another variable's value: a value shown whole (one that says nothing,
  // in a sync's files) would then show it, and the two claims below could not both hold.
  variables: FastCheck.array(variable, { maxLength: 4 }).filter((all) =>
    all.every((one, i) => all.every((other, j) => i === j || !other.secret.value.includes(one.secret.core))),
  ),
  groups: FastCheck.array(group, { maxLength: 3 }),
  variableStyle: FastCheck.constantFrom<Style>("headers", "inline", "inline-lines"),
  groupStyle: FastCheck.constantFrom<Style>("headers", "inline", "inline-lines"),
  variableKey: FastCheck.constantFrom<Spelling>("bare", "quoted", "escaped"),
  groupKey: FastCheck.constantFrom<Spelling>("bare", "quoted", "escaped"),
  crlf: FastCheck.boolean(),
  decoy: FastCheck.constantFrom<Form>("basic", "multiline", "multiline-literal"),
  arrayLine: FastCheck.boolean(),
})
type Document = typeof document extends FastCheck.Arbitrary<infer A> ? A : never

/** A variable's fields as `key = value` pairs, its value written as the case says. */
const variableFields = (v: Variable): ReadonlyArray<string> => {
  const value = v.marking === "false" ? str(v.plainValue, v.form) : str(v.secret.value, v.form)
  const fields = [`name = ${str(v.name, "basic")}`, `${key("value", v.valueKey)} = ${value}`]
  if (v.marking !== "absent") fields.push(`is_secret = ${v.marking}`)
  return fields
}

const groupFields = (g: Group): ReadonlyArray<string> => [
  ...(g.name === undefined ? [] : [`name = ${str(g.name, g.form)}`]),
  "everyone = true",
]

/** A root array of tables in `style`: inline tables' fields may not span lines, so multi-line strings become basic. */
const tablesOf = (
  name: string,
  style: Style,
  tables: ReadonlyArray<ReadonlyArray<string>>,
  comment: boolean,
): { readonly root: ReadonlyArray<string>; readonly sections: ReadonlyArray<string> } => {
  if (tables.length === 0) return { root: [], sections: [] }
  if (style === "headers") {
    const header = name.startsWith('"') ? `[[ ${name} ]]` : `[[${name}]]`
    return {
      root: [],
      sections: tables.map((fields) => [header, ...fields.map((f) => (comment ? `${f} # note` : f))].join("\n")),
    }
  }
  const inline = (fields: ReadonlyArray<string>) => `{ ${fields.map(oneLine).join(", ")} }`
  if (style === "inline") return { root: [`${name} = [${tables.map(inline).join(", ")}]`], sections: [] }
  return {
    root: [`${name} = [`, ...tables.map((t) => `  ${inline(t)},${comment ? " # one" : ""}`), "]"],
    sections: [],
  }
}

/** A field on one line: a multi-line string re-written as a basic one, for an inline table. */
const oneLine = (field: string): string => {
  const at = field.indexOf(" = ")
  const value = field.slice(at + 3)
  if (!value.startsWith('"""') && !value.startsWith("'''")) return field
  const read = parse(`v = ${value}`).v as string
  return `${field.slice(0, at)} = ${str(read, "basic")}`
}

const written = (d: Document): string => {
  const variables = tablesOf(key("variable", d.variableKey), d.variableStyle, d.variables.map(variableFields), true)
  const groups = tablesOf(key("user_group", d.groupKey), d.groupStyle, d.groups.map(groupFields), false)
  const root = [
    "# a sync's resources",
    'meta.owner = "platform" # dotted',
    ...(d.arrayLine ? ["tags = [", '  ["x"],', "  [", '    "y" ], # nested', "]"] : []),
    ...variables.root,
    ...groups.root,
  ]
  const stack = ["[[stack]]", 'name = "web"', `description = ${str(DECOY, d.decoy)}`, 'config.branch = "main"']
  const text = [...root, "", stack.join("\n"), ...variables.sections, ...groups.sections].join("\n\n")
  // Inside a multi-line string too: the parser keeps a CRLF there, and the values read so.
  return d.crlf ? text.replaceAll("\n", "\r\n") : text
}

const secretOf = (v: Variable) => v.marking !== "false"

/** The text as the parser reads it, with each secret variable's value read as `[redacted]`. */
const expectedReading = (text: string, variables: ReadonlyArray<Variable>) => {
  const reading = parse(text) as Record<string, unknown>
  const tables = reading.variable as Array<Record<string, unknown>> | undefined
  variables.forEach((v, i) => {
    if (secretOf(v) && tables?.[i] !== undefined) tables[i].value = "[redacted]"
  })
  return reading
}

describe("a sync's TOML in every form TOML allows", () => {
  it("the access check names exactly the user groups written; the redaction hides exactly the secret values", () =>
    FastCheck.assert(
      FastCheck.property(document, (d) => {
        const text = written(d)
        // Valid TOML, as written: the parser reads it.
        expect(() => parse(text), text).not.toThrow()
        expect(declaredGroups(text)).toEqual(d.groups.map((g) => g.name ?? "(unnamed)"))

        const out = hideSecrets(text)
        for (const v of d.variables.filter(secretOf)) expect(out, text).not.toContain(v.secret.core)
        // Read again, it is the original with the secret values replaced, and nothing else.
        expect(parse(out)).toEqual(expectedReading(text, d.variables))
        // Text in other strings is left whole: the decoy's table is no variable.
        expect(out).toContain("decoy-visible")
        // Each secret value is replaced where it is written, and nothing else: the text written with
        // `"[redacted]"` for each secret value, byte for byte.
        const redacted = d.variables.map((v) =>
          secretOf(v) ? { ...v, secret: { ...v.secret, value: "[redacted]" }, form: "basic" as const } : v,
        )
        expect(out).toBe(written({ ...d, variables: redacted }))

        // A sync's files are hidden where they say is_secret = true.
        const files = hidden(text, "ResourceSyncInfo", ["info", "remote_contents", 0, "contents"])
        const valuesIn = (toml: string) =>
          ((parse(toml).variable ?? []) as Array<Record<string, unknown>>).map((v) => v.value)
        const [shown, original] = [valuesIn(files), valuesIn(text)]
        d.variables.forEach((v, i) => {
          if (v.marking === "true") expect(files).not.toContain(v.secret.core)
          if (v.marking === "absent") expect(shown[i]).toBe(original[i])
        })
      }),
      { numRuns: runs(200) },
    ))

  it("a text the parser cannot read holds no decision and shows nothing of its variables", () => {
    const broken = '[[variable]]\nname = "A"\nvalue = "S3CR3T-cut"\nis_secret = true\n[[variable]\n'
    expect(hideSecrets(broken)).not.toContain("S3CR3T")
    expect(hideSecrets(broken)).toMatch(/^\[redacted: .*could not be read as TOML/)
    expect(declaredGroups('[[user_group]]\nname = "a"\n[[user_group')).toEqual({ unread: expect.any(String) })
    // A text that cannot hold a variable's key is shown as it is, read or not.
    expect(hideSecrets("[[stack]]\nname = ")).toBe("[[stack]]\nname = ")
  })
})

describe("a TOML text cut short", () => {
  it("is shown up to the last table's header before the cut, its secrets hidden; the rest is hidden", () => {
    const whole = [
      '[[variable]]\nname = "A"\nvalue = "S3CR3T-a"',
      '[[variable]]\nname = "B"\nvalue = "plain-b"\nis_secret = false',
      '[[variable]]\nname = "C"\nvalue = "S3CR3T-c-cut-here"',
    ].join("\n\n")
    const cut = whole.slice(0, whole.indexOf("-cut-here"))
    const out = hideSecrets(cut)
    expect(out).toBe(
      '[[variable]]\nname = "A"\nvalue = "[redacted]"\n\n[[variable]]\nname = "B"\nvalue = "plain-b"\nis_secret = false\n\n' +
        HIDDEN_REST,
    )
    // Read again (as a plan's texts are), it stays as it is.
    expect(hideSecrets(out)).toBe(out)
    // A cut inside a multi-line string whose lines look like headers: nothing reads whole before it.
    const inString = '[[variable]]\nname = "A"\nvalue = """\n[[x]]\nS3CR3T-in'
    expect(hideSecrets(inString)).toBe(HIDDEN_WHOLE)
  })
})
