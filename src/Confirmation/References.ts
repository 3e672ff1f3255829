/**
 * What refers to a resource a delete removes, for its question: each procedure whose stages run
 * something on it (by its id or its name), read just before asking from the procedures' full
 * records. Bounded: the first LISTED named, the rest counted; procedures that cannot be read are
 * said so, and the question is asked all the same.
 */
import * as Effect from "effect/Effect"
import { quote } from "../Shared/Quote.js"
import { SvcClient } from "../SvcClient.js"
import * as Tables from "../Tools/Catalog/Tables.js"

/** The kinds a procedure's stage may run something on, by the param that names them. */
const KINDS = ["stack", "deployment", "build", "repo", "procedure", "action", "server", "sync_resource"]

/** How many referring procedures the question names. */
const LISTED = 10

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
const array = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/** The stages of `procedure` that name the resource (`key`, one of `names`), by stage name. */
const stagesNaming = (procedure: unknown, key: string, names: ReadonlySet<string>) =>
  array(field(field(procedure, "config"), "stages")).flatMap((stage) =>
    array(field(stage, "executions")).some((entry) => {
      const value = text(field(field(field(entry, "execution"), "params"), key))
      return value !== undefined && names.has(value)
    })
      ? [text(field(stage, "name")) ?? "a stage"]
      : [],
  )

/** The lines a delete's question says of what refers to it; none for a kind a procedure cannot name. */
export const make = (
  kind: string,
  body: Readonly<Record<string, unknown>>,
): Effect.Effect<ReadonlyArray<string>, never, SvcClient> => {
  const given = text(body.id)
  if (!KINDS.includes(kind) || given === undefined) return Effect.succeed([])
  const key = kind === "sync_resource" ? "sync" : kind
  return Effect.gen(function* () {
    const client = yield* SvcClient
    const get = Tables.get[kind as keyof typeof Tables.get]
    const record = yield* Effect.either(client.call("read", get, { [key]: given }))
    const names = new Set([given])
    if (record._tag === "Right") {
      for (const name of [text(field(record.right, "name")), text(field(field(record.right, "_id"), "$oid"))]) {
        if (name !== undefined) names.add(name)
      }
    }
    const procedures = yield* client.call("read", "ListFullProcedures", {})
    const referring = array(procedures).flatMap((procedure) => {
      const stages = stagesNaming(procedure, key, names)
      return stages.length === 0
        ? []
        : [
            `the procedure ${quote(text(field(procedure, "name")) ?? "")} (its stage ${stages.map((s) => quote(s)).join(", ")})`,
          ]
    })
    if (referring.length === 0) return [`No procedure's stage refers to it.`]
    return [
      `Referring to it, which would fail once it is gone: ${referring.slice(0, LISTED).join("; ")}${referring.length > LISTED ? `; and ${referring.length - LISTED} more` : ""}.`,
    ]
  }).pipe(Effect.catchAll((error) => Effect.succeed([`What refers to it could not be read (${error.message}).`])))
}
