/**
 * The one program behind every tool: decode the arguments with the tool's
 * schema, pick the endpoint the selector names, call it once.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import { DEFAULT_SETTINGS, ServerSettings } from "../Config.js"
import { SvcClient } from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"
import type { Tool } from "./Tool.js"
import { follow } from "./Wait.js"

/** The arguments were refused before anything was sent. */
export class ToolInputError extends Data.TaggedError("ToolInputError")<{
  readonly tool: string
  readonly problems: ReadonlyArray<string>
}> {
  override get message(): string {
    return `${this.tool}: invalid arguments: ${this.problems.join("; ")}`
  }
}

/** The endpoint was called and the call failed. */
export class ToolCallError extends Data.TaggedError("ToolCallError")<{
  readonly tool: string
  readonly selectorKey: string
  readonly selector: string
  readonly endpoint: string
  readonly error: SvcError
}> {
  override get message(): string {
    const { group, endpoint } = this.error.call
    // The endpoint is named once: by the error itself, unless it failed elsewhere (at login).
    const where = `${group}/${endpoint}` === this.endpoint ? "" : ` -> ${this.endpoint}`
    return `${this.tool} ${this.selectorKey} ${JSON.stringify(this.selector)}${where}: ${this.error.message}`
  }
}

export interface Invocation {
  readonly tool: string
  /** svc_execute: follow the execution to its end. */
  readonly wait: boolean
  readonly selectorKey: string
  readonly selector: string
  /** `group/Endpoint`, e.g. `read/GetStack`. */
  readonly endpoint: string
  readonly body: Readonly<Record<string, unknown>>
}

export interface ToolSuccess extends Invocation {
  readonly data: unknown
  /** The service's body as sent, when `data` is exactly its JSON. */
  readonly text?: string
  /** For a call that waited: whether the execution succeeded, in a sentence. */
  readonly summary?: string
}

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`

const list = (values: ReadonlyArray<string>) => values.join(", ")

/** One sentence for each thing wrong, saying what is accepted instead. */
const problemsOf = (tool: Tool, args: unknown, error: ParseResult.ParseError): ReadonlyArray<string> => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [`the arguments must be an object with ${tool.selectorKey}, got ${describe(args)}`]
  }
  const given = args as Record<string, unknown>
  const accepted = [
    tool.selectorKey,
    "params",
    ...(tool.query === undefined ? [] : ["query"]),
    ...(tool.wait === undefined ? [] : ["wait"]),
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
    } else if (key === "wait") {
      problems.push(`wait must be true or false, got ${describe(given[key])}`)
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

/** Decodes and resolves a call without sending it. */
export const resolve = (tool: Tool, args: unknown): Either.Either<Invocation, ToolInputError> => {
  // A client may send no arguments at all; that is the same as an empty object.
  const decoded = tool.decode(args ?? {})
  if (Either.isLeft(decoded)) {
    return Either.left(new ToolInputError({ tool: tool.name, problems: problemsOf(tool, args ?? {}, decoded.left) }))
  }
  const { params, query, wait } = decoded.right
  const selector = decoded.right[tool.selectorKey] as string
  const body = query !== undefined && params.terms === undefined ? { ...params, terms: [query] } : params
  return Either.right({
    tool: tool.name,
    wait: wait === true,
    selectorKey: tool.selectorKey,
    selector,
    endpoint: `${tool.group}/${tool.endpoints[selector]}`,
    body,
  })
}

export const invoke = (
  tool: Tool,
  args: unknown,
): Effect.Effect<ToolSuccess, ToolInputError | ToolCallError, SvcClient> =>
  Effect.gen(function* () {
    const invocation = yield* resolve(tool, args)
    const client = yield* SvcClient
    const endpoint = tool.endpoints[invocation.selector] as string
    const failed = (error: SvcError) =>
      new ToolCallError({
        tool: tool.name,
        selectorKey: tool.selectorKey,
        selector: invocation.selector,
        endpoint: invocation.endpoint,
        error,
      })
    const { value: data, text } = yield* client
      .answer(tool.group, endpoint, invocation.body)
      .pipe(Effect.mapError(failed))
    if (!invocation.wait) return { ...invocation, data, text }
    const settings = yield* Effect.serviceOption(ServerSettings)
    const timeoutMs = Option.getOrElse(settings, () => DEFAULT_SETTINGS).waitTimeoutMs
    const waited = yield* follow(data, timeoutMs).pipe(Effect.mapError(failed))
    return { ...invocation, data: waited.data, summary: waited.summary }
  })
