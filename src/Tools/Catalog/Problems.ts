/**
 * What is wrong with a tool's arguments, as the assistant reads it: one sentence for each
 * argument Effect Schema refused, saying what is accepted instead.
 */
import * as ParseResult from "effect/ParseResult"
import { describe, isObject } from "../../Shared/JsonShape.js"
import * as Fields from "./Fields.js"
import type { Tool } from "./Tool.js"

const list = (values: ReadonlyArray<string>) => values.join(", ")

/** One sentence for each thing wrong, saying what is accepted instead. */
export const problemsOf = (tool: Tool, args: unknown, error: ParseResult.ParseError): ReadonlyArray<string> => {
  if (!isObject(args)) {
    return [`the arguments must be an object with ${tool.selectorKey}, got ${describe(args)}`]
  }
  const given = args as Record<string, unknown>
  const accepted = [
    tool.selectorKey,
    "params",
    ...(tool.query === undefined ? [] : ["query"]),
    ...(tool.wait === undefined ? [] : ["wait"]),
    ...(tool.fields === true ? ["fields"] : []),
    "schema",
  ]
  const seen = new Set<string>()
  const problems: Array<string> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const key = String(issue.path[0] ?? "")
    // A union reports one issue per member; one sentence per key is enough.
    if (seen.has(key)) continue
    seen.add(key)
    if (issue._tag === "Unexpected") {
      problems.push(`unknown argument ${JSON.stringify(key)}: ${tool.name} takes ${list(accepted)}`)
    } else if (key === tool.selectorKey) {
      problems.push(
        issue._tag === "Missing"
          ? `${key} is required, one of: ${list(tool.selectors)}`
          : `${key} ${JSON.stringify(given[key])} is not accepted by ${tool.name}; accepted: ${list(tool.selectors)}`,
      )
    } else if (key === "params") {
      problems.push(`params must be a JSON object (the endpoint's body), got ${describe(given[key])}`)
    } else if (key === "schema") {
      problems.push(
        `schema must be true, false or the name of a shape a schema answer named, got ${describe(given[key])}`,
      )
    } else if (key === "wait") {
      problems.push(`${key} must be true or false, got ${describe(given[key])}`)
    } else if (key === "fields") {
      problems.push(Fields.problemOf(given[key]))
    } else if (key === "query") {
      problems.push(
        issue._tag === "Missing"
          ? "query is required: the text to search for"
          : `query must be a string, got ${describe(given[key])}`,
      )
    } else {
      problems.push(`${key}: ${issue.message}`)
    }
  }
  return problems
}
