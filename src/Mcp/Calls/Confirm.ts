/**
 * SVC_CONFIRM: a call that matches one of its patterns is shown to the user,
 * who accepts it before anything is sent. On 2026-07-28 the question rides an
 * `input_required` result; on the earlier revisions the SDK asks it with
 * `elicitation/create`. A client that can do neither is refused (fail closed).
 * Every question carries a `requestState` sealed for the very call it asks
 * about (Confirmation/State.ts); the SDK echoes it back on the earlier
 * revisions too, so one rule decides in both eras. What the question says is
 * Confirmation/Question.ts's: this module only puts it in MCP's terms.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server"

/** The key of the one question in `inputRequests` / `inputResponses`. */
const KEY = "confirm"

/** Whether the client can be asked: it declared elicitation, in this request (2026-07-28) or at initialize. */
export const canAsk = (ctx: ServerContext, atInitialize: ClientCapabilities | undefined): boolean => {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? atInitialize
  return declared?.elicitation !== undefined
}

/** What the user decided, as the retry of a confirmed call says. */
export type Decision = "accept" | "decline" | "cancel" | "unasked"

/** The user's answer to the question, when this is the call's retry with it. */
export const answerOf = (ctx: ServerContext): Decision => {
  const response = inputResponse(ctx.mcpReq.inputResponses, KEY)
  return response.kind === "elicit" ? response.action : "unasked"
}

/** The `requestState` the client echoed with this retry, as it came: attacker-controlled until verified. */
export const stateOf = (ctx: ServerContext): string | undefined => {
  const state: unknown = ctx.mcpReq.requestState()
  return typeof state === "string" ? state : undefined
}

/** The `input_required` result that asks the question, with the state sealed for this call. */
export const ask = (text: string, requestState: string): InputRequiredResult =>
  inputRequired({
    inputRequests: {
      [KEY]: inputRequired.elicit({ message: text, requestedSchema: { type: "object", properties: {} } }),
    },
    requestState,
  })
