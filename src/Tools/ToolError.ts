/**
 * Every way a tool call ends in error, one tagged class each. `ToolError` is
 * their union: rendering matches it exhaustively, so a new kind is shown
 * everywhere or does not compile.
 */
import * as Data from "effect/Data"
import { callPath, type SvcError } from "../Service/Errors.js"

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
}> {
  get reason(): "declined" | "cancelled" {
    return this.answer === "decline" ? "declined" : "cancelled"
  }
  override get message(): string {
    return `${this.tool} ${this.selectorKey} ${JSON.stringify(this.selector)}: the user ${this.reason} the confirmation (SVC_CONFIRM); ${this.endpoint} was not called. Nothing was sent.`
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

/** No tool has this name: a protocol error, not a tool's, since there is no tool to answer. */
export class UnknownToolError extends Data.TaggedError("UnknownToolError")<{
  readonly name: string
  readonly tools: ReadonlyArray<string>
}> {
  override get message(): string {
    return `Unknown tool ${JSON.stringify(this.name)}; the tools are: ${this.tools.join(", ")}`
  }
}
