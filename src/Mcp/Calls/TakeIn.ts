/**
 * A secret taken in from the person, never through the model: a call that names params with
 * `from_person` (Tools/Params/FromPerson.ts), where the client declares URL-mode elicitation (MCP
 * 2025-11-25 and 2026-07-28), passes the policy, the guard and SVC_CONFIRM as any call does (a
 * question first where one is asked); where it would be sent, the person is asked to open a form
 * of svc-mcp's (Confirmation/SecretForm.ts) instead. Accepted, the call's retry waits for the form
 * to be sent (at most until it closes), then the call is sent with the person's values in the
 * placeholders' place; the model is told which params were set, never a value. On the 2025 revision
 * the client is told the form was sent (`notifications/elicitation/complete`); the 2026-07-28
 * revision has no such notification: its client learns it from the retry's answer.
 *
 * With sign-in the form is on the HTTP server and has an owner, the caller's identity: it signs
 * its person in first and opens only for them (SignIn/SignedInPages.ts). Where the pages have no
 * client to sign in with, a signed-in caller is refused, told what the operator would set; so is
 * a client that opens no pages, told where the person sets the secret themselves.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CallContext from "../../Call/Context.js"
import type { FormStore, Values } from "../../Confirmation/SecretForm.js"
import type { SecretPagesShape } from "../../Confirmation/SecretPages.js"
import { isObject } from "../../Shared/JsonShape.js"
import type { Call, Invocation, ToolSuccess } from "../../Tools/Invoke.js"
import * as FromPerson from "../../Tools/Params/FromPerson.js"
import * as FromPersonCheck from "../../Tools/Params/FromPersonCheck.js"
import * as Handover from "./Handover.js"
import type { Incoming } from "./Incoming.js"

/** The key of the one question in `inputRequests` / `inputResponses`. */
const KEY = "secret-form"

/** How the `requestState` of a form's question begins; the form's id follows. */
const STATE = "secret-form:"

/** What the answer shows in place of a value the person gave. */
const SET = "[set by the person]"

const namesOf = (invocation: Invocation) => invocation.fromPerson ?? []

/** Whether a form can take them in: the pages serve forms, the client opens pages, none signed in or the forms sign their person in. */
const applies = (incoming: Incoming, context: CallContext.CallContext, pages: SecretPagesShape): boolean =>
  pages.forms !== undefined &&
  (Option.isNone(context.identity) || pages.signedIn?.formUrlOf !== undefined) &&
  Handover.canOpenUrl(incoming)

/** The forms, once loaded, and their addresses; with sign-in, whom they open for. */
interface Forms {
  readonly forms: FormStore
  readonly formUrlOf: (id: string) => Promise<string>
  readonly owner: string | undefined
}

/** The call a form is bound to: its endpoint and params, placeholders in place. */
const callKey = (invocation: Invocation) => JSON.stringify([invocation.endpoint, invocation.body])

const quoted = (names: ReadonlyArray<string>) => names.map((name) => JSON.stringify(name)).join(", ")

/** What the person gives, in words, with the call's name for what it is of. */
const what = (invocation: Invocation): string => {
  const name = typeof invocation.body.name === "string" ? ` ${JSON.stringify(invocation.body.name)}` : ""
  const of = invocation.endpoint.includes("Variable") ? ` of the variable${name}` : ` for ${invocation.endpoint}`
  return `${quoted(namesOf(invocation))}${of}`
}

/** Where this call stands with its form. */
type Step =
  | { readonly _tag: "Ask" }
  | { readonly _tag: "Wait"; readonly id: string; readonly until: number }
  | { readonly _tag: "Declined"; readonly id: string }
  | { readonly _tag: "Stale" }

/** The step of this call, from the answer and the state its retry echoed. */
const stepOf = (pages: Forms, incoming: Incoming, binding: string, invocation: Invocation, now: number): Step => {
  const response = inputResponse(incoming.ctx.mcpReq.inputResponses, KEY)
  const state: unknown = incoming.ctx.mcpReq.requestState()
  if (response.kind !== "elicit" || typeof state !== "string" || !state.startsWith(STATE)) return { _tag: "Ask" }
  const id = state.slice(STATE.length)
  const until = pages.forms.pending(id, binding, callKey(invocation), now)
  if (until === undefined) return { _tag: "Stale" }
  return response.action === "accept" ? { _tag: "Wait", id, until } : { _tag: "Declined", id }
}

const untilText = (until: number) => new Date(until).toISOString().replace(/\.\d{3}Z$/, "Z")

/** The question: open the form, where the person types the params `from_person` names. */
const ask = async (
  { forms, formUrlOf: urlOf, owner }: Forms,
  incoming: Incoming,
  invocation: Invocation,
  binding: string,
  now: number,
): Promise<InputRequiredResult> => {
  const title = `Give ${what(invocation)}`
  const made = forms.make(binding, callKey(invocation), { title, fields: namesOf(invocation) }, now, owner)
  const url = await urlOf(made.id)
  const signIn = owner === undefined ? "" : " (sign in there as yourself first: it opens for you alone)"
  return inputRequired({
    inputRequests: {
      [KEY]: inputRequired.elicitUrl({
        message: `Open this page of svc-mcp's${signIn} to type ${what(invocation)} for ${invocation.endpoint}; svc-mcp sends the call with it, and the assistant does not see it. The page closes at ${untilText(made.until)}.`,
        url,
        ...(Handover.legacy(incoming) ? { elicitationId: Handover.elicitationIdOf(made.id) } : {}),
      }),
    },
    requestState: `${STATE}${made.id}`,
  })
}

/**
 * The values of form `id`, once the person sends it: undefined if the form closes first. The
 * 2025-era client is told the elicitation is complete as the form is sent.
 */
const valuesOf = (
  { forms }: Forms,
  incoming: Incoming,
  id: string,
  binding: string,
  until: number,
): Effect.Effect<Values | undefined> => {
  const waited = Effect.async<Values>((resume) => {
    const stop = forms.wait(
      id,
      binding,
      (values) => resume(Effect.succeed(values)),
      Date.now(),
      () => Handover.complete(incoming, id, true),
    )
    return Effect.sync(stop)
  })
  return Effect.timeoutTo(waited, {
    duration: Duration.millis(Math.max(0, until - Date.now())),
    onSuccess: (values): Values | undefined => values,
    onTimeout: () => undefined,
  })
}

/** The call as sent: the person's values in the placeholders' place. */
export const sent = (call: Call, invocation: Invocation, values: Values): Call => ({
  ...call,
  invocation: Either.right({ ...invocation, body: FromPerson.filled(invocation.body, values) }),
})

/** Every string of `value` that holds one of `secrets`, as `SET`. */
const scrubbed = (value: unknown, secrets: ReadonlyArray<string>): unknown => {
  if (typeof value === "string") return secrets.some((secret) => value.includes(secret)) ? SET : value
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, secrets))
  if (!isObject(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, scrubbed(field, secrets)]))
}

/**
 * The answer without the person's values, wherever the service echoed them; the call's body as
 * it had it, placeholders in place. Its text held them: it is rendered from `data` alone.
 */
const take =
  (invocation: Invocation, values: Values) =>
  (outcome: ToolSuccess): ToolSuccess => {
    const { text: _text, ...rest } = outcome
    return { ...rest, body: invocation.body, data: scrubbed(outcome.data, Object.values(values)) }
  }

/** The model's answer, with a line saying which params the person set, never their values. */
const told = (result: CallToolResult, invocation: Invocation): CallToolResult =>
  Handover.appended(
    result,
    `The person set ${quoted(namesOf(invocation))} on a page of svc-mcp's, out of your sight; the values are in no answer: do not ask for them.`,
  )

/** The answer to a `from_person` that names what may not be named: nothing is asked or sent. */
const invalid = (invocation: Invocation, problems: ReadonlyArray<string>): CallToolResult => ({
  content: [{ type: "text", text: `${invocation.tool}: invalid arguments: ${problems.join("; ")}` }],
  isError: true,
})

/** The answer where no form can take the secret in: nothing is asked or sent, and how the person sets it themselves. */
const refused = (invocation: Invocation, signedIn: boolean): CallToolResult => ({
  content: [
    {
      type: "text",
      text: `Nothing was sent: ${what(invocation)} can be given only on a page of svc-mcp's, and ${signedIn ? "these pages sign a person in only where the operator sets SVC_MCP_OAUTH_PAGE_CLIENT_ID (and SVC_MCP_OAUTH_PAGE_CLIENT_SECRET), a client of the issuer's for svc-mcp's pages" : "this client opens no pages (URL-mode elicitation)"}. The person can set it themselves in the service's own UI${signedIn ? "" : ", or use a client that opens pages"}. Do not ask them for the value here: it would pass through you.`,
    },
  ],
  isError: true,
})

/** The answer to a declined form, or one that closed unsent: nothing was sent. */
const unsent = (invocation: Invocation, why: "declined" | "closed"): CallToolResult => ({
  content: [
    {
      type: "text",
      text:
        why === "declined"
          ? `The person declined the page for ${what(invocation)}: nothing was sent.`
          : `The page for ${what(invocation)} closed before the person sent it: nothing was sent. Call again to be given a new one.`,
    },
  ],
  isError: true,
})

/** The answer to a retry whose form is gone (closed, used, another caller's or another call's): nothing was sent. */
const stale: CallToolResult = {
  content: [
    {
      type: "text",
      text: "The page this retry answers has closed, was used, or is not this call's: nothing was sent. Call again to be given a new one.",
    },
  ],
  isError: true,
}

/** The context of the call sent with the person's values: the audit line says which were taken in. */
const passed = (invocation: Invocation) =>
  CallContext.locallyWith((context) => ({
    ...context,
    secret: { passed: "taken" as const, params: namesOf(invocation) },
  }))

/** What the adapter does for a call that takes a secret in; TakeIn decides when. */
export interface Steps<E, R> {
  /** The policy's, the guard's and SVC_CONFIRM's checks, then `send` where the call would be sent. */
  readonly checked: (
    send: Effect.Effect<CallToolResult | InputRequiredResult, E, R>,
  ) => Effect.Effect<CallToolResult | InputRequiredResult, E, R>
  /** The call sent with the person's values, its answer as `take` leaves it. */
  readonly perform: (take: (outcome: ToolSuccess) => ToolSuccess, values: Values) => Effect.Effect<CallToolResult, E, R>
  /** Nothing sent: recorded as `outcome` for `reason`, answered `answer`. */
  readonly unsent: <A>(reason: string, outcome: "refused" | "declined" | "asked", answer: A) => Effect.Effect<A>
}

/** A call that takes a secret in, step by step: the form asked once the call is checked, then waited for, then the call sent. */
export const run = <E, R>(
  pages: SecretPagesShape,
  incoming: Incoming,
  invocation: Invocation,
  steps: Steps<E, R>,
): Effect.Effect<CallToolResult | InputRequiredResult, E, R> =>
  Effect.flatMap(CallContext.get, (context) => {
    const given = isObject(incoming.args) && isObject(incoming.args.params) ? incoming.args.params : {}
    const unfit = FromPersonCheck.problems(invocation.endpoint, given, namesOf(invocation))
    if (unfit.length > 0) {
      return steps.unsent(
        unfit.join("; "),
        "refused",
        invalid(invocation, unfit) as CallToolResult | InputRequiredResult,
      )
    }
    if (!applies(incoming, context, pages)) {
      return steps.unsent(
        "no page to take the secret in",
        "refused",
        refused(invocation, Option.isSome(context.identity)) as CallToolResult | InputRequiredResult,
      )
    }
    const owner = Handover.ownerOf(context)
    const signedIn = owner === undefined ? undefined : pages.signedIn?.formUrlOf
    const formUrlOf =
      signedIn === undefined ? (pages.formUrlOf as Forms["formUrlOf"]) : (id: string) => Promise.resolve(signedIn(id))
    return Effect.flatMap(
      Effect.promise(() => (pages.forms as () => Promise<FormStore>)()),
      (forms) => steps_({ forms, formUrlOf, owner }, incoming, invocation, steps, Handover.bindingOf(context)),
    )
  })

/** The call's step with its form: asked once the call is checked, waited for, then the call sent. */
const steps_ = <E, R>(
  pages: Forms,
  incoming: Incoming,
  invocation: Invocation,
  steps: Steps<E, R>,
  binding: string,
): Effect.Effect<CallToolResult | InputRequiredResult, E, R> => {
  const step = stepOf(pages, incoming, binding, invocation, Date.now())
  switch (step._tag) {
    case "Ask":
      return steps.checked(
        Effect.tryPromise(() => ask(pages, incoming, invocation, binding, Date.now())).pipe(
          Effect.flatMap((asked) => steps.unsent("asked to open a secret's form", "asked", asked)),
          // No form can be served (no loopback port): refused, as without URL mode.
          Effect.catchAll(() => Effect.succeed(refused(invocation, false))),
        ),
      )
    case "Stale":
      return Effect.succeed(stale)
    case "Declined":
      pages.forms.drop(step.id, binding)
      return steps.unsent("the person declined the secret's form", "declined", unsent(invocation, "declined"))
    case "Wait":
      return Effect.flatMap(valuesOf(pages, incoming, step.id, binding, step.until), (values) =>
        values === undefined
          ? steps.unsent("the secret's form closed unsent", "refused", unsent(invocation, "closed"))
          : Effect.map(steps.perform(take(invocation, values), values).pipe(passed(invocation)), (result) =>
              told(result, invocation),
            ),
      )
  }
}
