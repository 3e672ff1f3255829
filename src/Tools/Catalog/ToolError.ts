/**
 * Every way a tool call ends in error, one tagged class each, and the kind
 * each is reported as. `ToolError` is their union: rendering and `kindOf`
 * match it exhaustively, so a new error is shown and recorded everywhere or
 * does not compile.
 */
import * as Data from "effect/Data"
import { callPath, type SvcError } from "../../Service/Errors.js"

/** The arguments were refused by the tool's schema before anything was sent. */
export class ToolInputError extends Data.TaggedError("ToolInputError")<{
  readonly tool: string
  readonly problems: ReadonlyArray<string>
}> {
  override get message(): string {
    return `${this.tool}: invalid arguments: ${this.problems.join("; ")}`
  }
}

/** One thing wrong with the params, at a path such as `params.config.links[0]`. */
export interface Problem {
  readonly path: string
  readonly message: string
}

/** The params were refused by the endpoint's definition; nothing was sent. */
export class ToolParamsError extends Data.TaggedError("ToolParamsError")<{
  readonly tool: string
  readonly selectorKey: string
  readonly selector: string
  readonly endpoint: string
  readonly problems: ReadonlyArray<Problem>
  /** The fields the endpoint takes, with their types, compact. */
  readonly accepted: string
}> {
  override get message(): string {
    const problems = this.problems.map((p) => `${p.path}: ${p.message}`).join("; ")
    return `${this.tool} ${this.selectorKey} ${JSON.stringify(this.selector)} -> ${this.endpoint}: invalid params: ${problems}`
  }
}

/** The policy (SVC_MODE, SVC_ALLOW, SVC_DENY, SVC_CONFIRM) refuses the call; nothing was sent. */
export class ToolDeniedError extends Data.TaggedError("ToolDeniedError")<{
  readonly tool: string
  readonly selector?: string
  /** `group/Endpoint` the selector names: the audit line says it, and redacts the params as that endpoint's. */
  readonly endpoint?: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.tool}${this.selector === undefined ? "" : ` ${JSON.stringify(this.selector)}`} is refused: ${this.reason}. Nothing was sent.`
  }
}

/** The user declined or cancelled the confirmation SVC_CONFIRM asks for; nothing was sent. */
export class ToolNotConfirmedError extends Data.TaggedError("ToolNotConfirmedError")<{
  readonly tool: string
  readonly selectorKey: string
  readonly selector: string
  readonly endpoint: string
  readonly answer: "decline" | "cancel"
  /** The setting that asked: SVC_CONFIRM, or a named service's own. */
  readonly setting?: string
}> {
  get reason(): "declined" | "cancelled" {
    return this.answer === "decline" ? "declined" : "cancelled"
  }
  override get message(): string {
    return `${this.tool} ${this.selectorKey} ${JSON.stringify(this.selector)}: the user ${this.reason} the confirmation (${this.setting ?? "SVC_CONFIRM"}); ${this.endpoint} was not called. Nothing was sent.`
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
    // The endpoint is named once: by the error itself, unless it failed elsewhere (at login).
    const where = callPath(this.error.call) === this.endpoint ? "" : ` -> ${this.endpoint}`
    return `${this.tool} ${this.selectorKey} ${JSON.stringify(this.selector)}${where}: ${this.error.message}`
  }
}

export type ToolError = ToolInputError | ToolParamsError | ToolDeniedError | ToolNotConfirmedError | ToolCallError

/** What went wrong, in one word a program can switch on: in results, audit lines and metrics alike. */
export type ErrorKind =
  | "invalid_arguments"
  | "invalid_params"
  | "denied"
  | "not_confirmed"
  | "timeout"
  | "unreachable"
  | "service_error"
  | "unknown_endpoint"
  | "bad_response"
  | "auth"

const serviceKind = (error: SvcError): ErrorKind => {
  switch (error._tag) {
    case "SvcTimeoutError":
      return "timeout"
    case "SvcUnreachableError":
      return "unreachable"
    case "SvcServiceError":
      return error.reason === "UnknownEndpoint" ? "unknown_endpoint" : "service_error"
    case "SvcResponseError":
      return "bad_response"
    case "SvcAuthError":
      return "auth"
  }
}

export const kindOf = (error: ToolError): ErrorKind => {
  switch (error._tag) {
    case "ToolInputError":
      return "invalid_arguments"
    case "ToolParamsError":
      return "invalid_params"
    case "ToolDeniedError":
      return "denied"
    case "ToolNotConfirmedError":
      return "not_confirmed"
    case "ToolCallError":
      return serviceKind(error.error)
  }
}

/** The HTTP status the service answered a failed call with, when it answered at all. */
export const statusOf = (error: ToolError): number | undefined => {
  if (error._tag !== "ToolCallError") return undefined
  const cause = error.error
  switch (cause._tag) {
    case "SvcServiceError":
    case "SvcResponseError":
    case "SvcAuthError":
      return cause.status
    default:
      return undefined
  }
}

/** No tool has this name: a protocol error, not a tool's, since there is no tool to answer. */
export class UnknownToolError extends Data.TaggedError("UnknownToolError")<{
  readonly name: string
  readonly tools: ReadonlyArray<string>
}> {
  override get message(): string {
    return `Unknown tool ${JSON.stringify(this.name)}; the tools are: ${this.tools.join(", ")}`
  }
}
