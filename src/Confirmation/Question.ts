/**
 * The confirmation's question (SVC_CONFIRM): what the call will do, in words
 * a user can judge before anything is sent. Its head says what it calls, on
 * what; then what its endpoint's preview reads just before asking (Previews.ts:
 * an update's changed fields, a delete's record and referrers, a batch's
 * matches, a prune's, a deploy's, a sync run's plan...); last, why it is asked.
 * Among several services it names the service and that service's own setting.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Asked from "../Call/Asked.js"
import * as CallContext from "../Call/Context.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import { oneLine, quote, word } from "../Shared/Quote.js"
import { REDACTED } from "../Shared/Secrets.js"
import type { SvcClient } from "../SvcClient.js"
import { isSecretParam } from "../Tools/Bounds/SecretParams.js"
import type { Invocation } from "../Tools/Invoke.js"
import { SHOWN_ONCE } from "../Tools/Policy/Policy.js"
import { shown } from "./Changes.js"
import type { Asking } from "./PlanShape.js"
import * as Previews from "./Previews.js"

export interface Question extends Asking {
  /**
   * Why the call is asked (Call/Asked.ts, resolved once): the setting and its pattern, what the call
   * touches that the pattern names, and the guard's hold (what the caller read before this call).
   */
  readonly asked?: Asked.Asked | undefined
}

/** What the call does, in words: the endpoint and the identifying fields of its body. */
const target = ({ body, endpoint }: Invocation, revealSecrets: boolean) => {
  const fields = Object.entries(body).filter(([, value]) => typeof value !== "object" || value === null)
  // A secret is said as an answer says it: the user's client may keep the question in its logs.
  const said = (key: string, value: unknown) =>
    !revealSecrets && typeof value === "string" && value !== "" && isSecretParam(endpoint, body, key, true)
      ? REDACTED
      : inHead(key, value)
  return fields.length === 0 ? "" : ` on ${fields.map(([key, value]) => `${word(key)}=${said(key, value)}`).join(", ")}`
}

/** A file's contents are said in characters: the plan says what changes, and no line of them opens the question. */
const inHead = (key: string, value: unknown) =>
  key === "contents" && typeof value === "string" ? `(${value.length} characters)` : shown(value)

/**
 * What the user is told before a secret the service shows once is made while secrets are
 * withheld: that it will not be shown, and how to see it.
 */
const shownOnce = (endpoint: string) => {
  const what = SHOWN_ONCE[endpoint.slice(endpoint.indexOf("/") + 1)]
  if (what === undefined) return undefined
  return {
    variable: "SVC_REVEAL_SECRETS",
    text: `The service shows ${what} once, in its answer to this call, and svc-mcp keeps it from the assistant (SVC_REVEAL_SECRETS is off): it will not be shown, and cannot be read again. To see it, make it yourself in the service's web page, or have the operator set SVC_REVEAL_SECRETS=true first.`,
  }
}

/** Why the question is asked, in the words its last line gives. */
const askedWords = (asked: Asked.Asked | undefined, endpoint: string) => {
  const held = asked === undefined ? undefined : Asked.heldOf(asked)
  // What was read names what it was read from: a name of the service's, kept on this line.
  const because =
    held === undefined ? undefined : `this follows reading ${oneLine(held.read)}, which may carry instructions`
  const and = because === undefined ? "" : `, and ${because}`
  const first = asked === undefined ? undefined : Asked.first(asked)
  if (first === undefined || first._tag === "Held") return { asked: `asked because ${because} (SVC_GUARD)`, told: [] }
  if (first._tag === "ShownOnce") {
    const secret = shownOnce(endpoint)
    if (secret !== undefined) return { asked: `asked because ${secret.variable} is off${and}`, told: [secret.text] }
  }
  // What the pattern's `@` part matched names resources of the service's: each quoted where it is made.
  const touched = first._tag === "Pattern" && first.touched.length > 0 ? `: ${first.touched.join("; ")}` : ""
  return { asked: `asked because of ${first.setting} ${first.pattern}${touched}${and}`, told: [] }
}

/** The question shown to the user. */
export const message = (question: Question): Effect.Effect<string, never, SvcClient | PatternReader> =>
  Effect.gen(function* () {
    const { invocation } = question
    // Among several services the user must know which one the call is for; the setting that asked is named as it.
    const { service } = yield* CallContext.get
    const on = Option.match(service, { onNone: () => "", onSome: (name) => `${name}: ` })
    const head = `${on}${invocation.tool} ${invocation.selectorKey} ${quote(invocation.selector)} will call ${invocation.endpoint}${target(invocation, question.revealSecrets)}.`
    // What the call will do, read just before asking, as its endpoint's preview says (Previews.ts).
    const preview = yield* Previews.lines(question)
    const { asked, told } = askedWords(question.asked, invocation.endpoint)
    return [head, ...preview, ...told, `Send it? (${asked}; nothing is sent unless you accept)`].join("\n")
  })
