/**
 * A value written as a TOML 1.0 string in each form the language has, so that a test makes a
 * value first and knows exactly what the TOML it writes holds.
 */
export type Form = "basic" | "escaped" | "literal" | "multiline" | "multiline-literal"
export const FORMS: ReadonlyArray<Form> = ["basic", "escaped", "literal", "multiline", "multiline-literal"]

/** A basic string's content: escapes where TOML needs them, or (escapeAll) every letter and digit as \uXXXX. */
const basic = (text: string, escapeAll: boolean) =>
  [...text]
    .map((c) => {
      if (escapeAll && /[A-Za-z0-9]/.test(c)) return `\\u${c.codePointAt(0)?.toString(16).padStart(4, "0")}`
      if (c === "\\") return "\\\\"
      if (c === '"') return '\\"'
      if (c === "\n") return "\\n"
      if (c === "\t") return "\\t"
      return c
    })
    .join("")

/** `value` written as a TOML string of `form`; undefined where that form cannot hold it. */
export const written = (value: string, form: Form): string | undefined => {
  switch (form) {
    case "basic":
      return `"${basic(value, false)}"`
    case "escaped":
      return `"${basic(value, true)}"`
    case "literal":
      return /['\n]/.test(value) ? undefined : `'${value}'`
    case "multiline":
      // A newline right after the opening quotes is not part of the string.
      return `"""\n${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"""`
    case "multiline-literal":
      return value.includes("'") ? undefined : `'''\n${value}'''`
  }
}

/** `value` written as a TOML string of `form`, or as a basic one where that form cannot hold it. */
export const str = (value: string, form: Form): string => written(value, form) ?? `"${basic(value, false)}"`
