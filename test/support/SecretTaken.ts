/**
 * What a call left that took a secret's value from the person on a form (`from_person`), as the
 * secret-form tests check it over the built server: its answer says the person set it and holds no
 * value; the service holds the value typed, as a secret; neither the log nor the audit holds it, and
 * the audit's intent says which param the person gave.
 */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"

interface Taken {
  /** The call's answer. */
  readonly result: { readonly isError?: boolean }
  /** The value typed into the form. */
  readonly secret: string
  /** The variable as the service's admin reads it back. */
  readonly held: Effect.Effect<{ readonly status: number; readonly body: { value?: unknown; is_secret?: unknown } }>
  readonly stderr: () => string
  readonly auditText: () => string
}

/** Checks what `taken` left; its audit's intents that carry a secret's param, for the test to check further. */
export const expectTaken = ({ result, secret, held, stderr, auditText }: Taken) =>
  Effect.gen(function* () {
    const text = JSON.stringify(result)
    expect(result.isError, `${text}\n${stderr()}`).toBeFalsy()
    expect(text).toMatch(/The person set \\"value\\" on a page of svc-mcp's/)
    expect(text).not.toContain(secret)
    // The service holds the value the person typed.
    const read = yield* held
    expect(read.status).toBe(200)
    expect(read.body.value).toBe(secret)
    expect(read.body.is_secret).toBe(true)
    // The audit says which param the person gave, never the value; nor does the log.
    const lines = auditText()
    expect(lines).not.toContain(secret)
    expect(stderr()).not.toContain(secret)
    const intents = lines
      .split("\n")
      .filter((line) => line.includes("CreateVariable") && line.includes('"secret"'))
      .map((line) => JSON.parse(line) as { secret?: { passed: string; params: Array<string>; person?: string } })
    expect(intents.length).toBeGreaterThan(0)
    expect(intents[0]?.secret).toMatchObject({ passed: "taken", params: ["value"] })
    return intents
  })
