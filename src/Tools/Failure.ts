/**
 * How a tool's failure is shown: its kind and words for the assistant, and the same facts as a
 * structured object a program can read.
 */
import type { SvcError } from "../Service/Errors.js"
import { kindOf, type ToolCallError, type ToolError } from "./Catalog/ToolError.js"
import type { Rendered, StructuredError } from "./Rendered.js"

const detailsOf = (error: SvcError): Partial<StructuredError> => {
  switch (error._tag) {
    case "SvcTimeoutError":
      return {}
    case "SvcUnreachableError":
      return { reason: error.reason }
    case "SvcServiceError":
      return {
        status: error.status,
        error: error.error,
        trace: error.trace,
        ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      }
    case "SvcResponseError":
      return { status: error.status }
    case "SvcAuthError":
      return error.status === undefined ? { reason: error.reason } : { reason: error.reason, status: error.status }
  }
}

const callFailure = (error: ToolCallError): Rendered => {
  const cause = error.error
  const structured: StructuredError = {
    kind: kindOf(error),
    tool: error.tool,
    selector: error.selector,
    endpoint: error.endpoint,
    message: error.message,
    ...detailsOf(cause),
  }
  const trace =
    structured.trace !== undefined && structured.trace.length > 0
      ? `\ntrace:\n${structured.trace.map((line) => `  - ${line}`).join("\n")}`
      : ""
  return { isError: true, text: `${error.message}${trace}`, structured: { error: structured } }
}

const refused = (text: string, structured: StructuredError): Rendered => ({
  isError: true,
  text,
  structured: { error: structured },
})

export const failure = (error: ToolError): Rendered => {
  switch (error._tag) {
    case "ToolInputError":
      return refused(`${error.message}. Nothing was sent.`, {
        kind: "invalid_arguments",
        tool: error.tool,
        message: error.message,
        problems: error.problems,
      })
    case "ToolParamsError":
      return refused(
        [
          `${error.tool} ${error.selectorKey} ${JSON.stringify(error.selector)} -> ${error.endpoint}: invalid params, nothing was sent:`,
          ...error.problems.map((p) => `- ${p.path}: ${p.message}`),
          `${error.endpoint} takes params ${error.accepted}`,
        ].join("\n"),
        {
          kind: "invalid_params",
          tool: error.tool,
          selector: error.selector,
          endpoint: error.endpoint,
          message: error.message,
          problems: error.problems,
          accepted: error.accepted,
        },
      )
    case "ToolDeniedError":
      return refused(error.message, {
        kind: "denied",
        tool: error.tool,
        message: error.message,
        reason: error.reason,
        ...(error.selector === undefined ? {} : { selector: error.selector }),
      })
    case "ToolNotConfirmedError":
      return refused(error.message, {
        kind: "not_confirmed",
        tool: error.tool,
        selector: error.selector,
        endpoint: error.endpoint,
        reason: error.reason,
        message: error.message,
      })
    case "ToolCallError":
      return callFailure(error)
    default:
      return absurd(error)
  }
}

/**
 * The result of a call whose audit line could not be written (`error` is the
 * audit log's error): a change whose intent could not be written was not sent,
 * and a refusal that could not be recorded is answered as refused.
 */
export const unrecorded = (error: { readonly message: string; readonly unsent?: boolean | undefined }): Rendered => ({
  isError: true,
  text:
    error.unsent === true
      ? `${error.message}. Nothing was sent to the service: this server writes down every change before it makes it. Tell the user the change was not made; it can be made once the audit log can be written again (the operator fixes it, then sends SIGHUP). Reads go on.`
      : `${error.message}. This server records every call it refuses; the call was refused, and nothing was sent.`,
})

/** Reached only if a kind of ToolError is not handled above: then `error` is not `never`, and this does not compile. */
const absurd = (error: never): never => {
  throw new Error(`unrendered tool error ${JSON.stringify(error)}`)
}
