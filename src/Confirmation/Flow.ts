/**
 * Whether one call asks the user before it is sent, and where the user's reply leaves it: the
 * confirmation's states, apart from MCP's terms (Mcp/Calls/ToolCall.ts puts the verdict in them and
 * records it). A call that SVC_CONFIRM names, or that the guard holds after untrusted text, is
 * sent only once the user accepts a question sealed for this very call:
 *
 * - not yet asked, or an accept that cannot be honoured (no state, another call's, expired,
 *   used): the question is asked, with a state sealed for this call (`Ask`); a client that can
 *   be asked nothing is refused (`Refuse`), fail closed;
 * - declined or cancelled: nothing is sent (`Decline`), as it comes, since it sends nothing;
 * - accepted with the state sealed for this call, by this caller, unexpired and unused: the call
 *   is sent once (`SendOnce`); a state whose call went out already is refused.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Asked from "../Call/Asked.js"
import * as CallContext from "../Call/Context.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import type { SvcClient } from "../SvcClient.js"
import type { Invocation } from "../Tools/Invoke.js"
import type { NamesShape } from "../Tools/Names/Names.js"
import * as Question from "./Question.js"
import type * as ConfirmationState from "./State.js"

/** What the user replied to the question, as the call's retry says; `unasked` on the first try. */
type Reply = "accept" | "decline" | "cancel" | "unasked"

/** One call, as its confirmation reads it. */
export interface Request {
  readonly tool: string
  readonly args: unknown
  readonly invocation: Invocation
  /** Why the call is asked (Confirmation/WhyAsked.ts resolves it once); undefined when nothing asks. */
  readonly asked: Asked.Asked | undefined
  readonly reply: Reply
  /** The state the client echoed with its reply: the attacker's to choose until it is verified. */
  readonly echoedState: string | undefined
  /** Whether the client can be asked at all (it declared elicitation). */
  readonly canAsk: boolean
}

/** Where the confirmation leaves a call. */
export type Verdict = Data.TaggedEnum<{
  /** Nothing asks before this call: it is sent. */
  Send: Record<never, never>
  /** An accept honoured: the call is sent, and `markSent` run once it is out, so that a retry of the answer is not. */
  SendOnce: { readonly markSent: Effect.Effect<void> }
  /** The question to put to the user, the state sealed for this call, and the words the record gives it. */
  Ask: { readonly question: string; readonly state: string; readonly recorded: string }
  /** The user declined or cancelled: nothing is sent. */
  Decline: { readonly answer: "decline" | "cancel"; readonly setting: string; readonly recorded: string }
  /** Refused before anything is sent, for `reason`. */
  Refuse: { readonly reason: string }
}>
export const Verdict = Data.taggedEnum<Verdict>()

/** The question could not be put into words (a defect in the reading of the target): the call fails. */
export class QuestionUnprepared extends Data.TaggedError("QuestionUnprepared")<Record<never, never>> {}

/** What the confirmation reads that does not change between calls. */
export interface Settings {
  readonly states: ConfirmationState.ConfirmationStateShape
  readonly revealSecrets: boolean
  readonly names: Option.Option<NamesShape>
  /** A setting's name as this service spells it (SVC_STAGING_CONFIRM among several). */
  readonly variable: (single: string) => string
}

/** Made once: a call that confirms nothing allocates no verdict. */
const sendNow: Effect.Effect<Verdict> = Effect.succeed(Verdict.Send())

/** The shared store (SVC_MCP_STORE) could not record the question or its answer: nothing is sent (fail closed). */
const storeDidNotAnswer = (error: ConfirmationState.ConfirmationUnrecorded) =>
  `the confirmation could not be recorded: the shared store (SVC_MCP_STORE) did not answer (${error.detail}); nothing was sent, try again once it answers`

const SENT_ALREADY =
  "this confirmation was honoured already and its call sent (by this server or another replica), with no outcome recorded: it is not sent again; read the resource to see what it did"

/**
 * Why a held change is refused to a client that cannot be asked: which read opened the window,
 * and the ways forward. No time to wait for: the text stays in the conversation, so waiting would
 * change nothing but the guard's mind.
 */
export const holdRefusal = ({ read, why }: { readonly read: string; readonly why: string }): string =>
  `this change ${why.startsWith("SVC_GUARD") ? `is held by ${why}` : `${why}, so it is held`} because it follows reading ${read}, which may carry instructions (SVC_GUARD); this client can answer neither input_required nor elicitation requests. To go on: use a client that can answer the confirmation, or the user makes this change themselves, or the operator changes SVC_GUARD_HOLD or SVC_GUARD`

/** The verdict on one call that would be sent. */
export const decide = (
  settings: Settings,
  request: Request,
): Effect.Effect<Verdict, QuestionUnprepared, SvcClient | PatternReader> => {
  const { invocation, asked, reply } = request
  // `schema: true` sends nothing: there is nothing to confirm.
  if (invocation.schema || asked === undefined) return sendNow
  // What asks: the operator's setting, else the guard.
  const first = Asked.first(asked)
  const setting = Asked.settingOf(first)
  if (reply === "decline" || reply === "cancel") {
    const recorded = `the user ${reply === "decline" ? "declined" : "cancelled"} the confirmation (${setting})`
    return Effect.succeed(Verdict.Decline({ answer: reply, setting, recorded }))
  }
  return Effect.gen(function* () {
    const binding = bindingOf(request, yield* CallContext.get)
    if (reply === "accept") {
      const accepted = yield* honour(settings, request, binding)
      if (Either.isRight(accepted)) return accepted.right
    }
    if (!request.canAsk) {
      return Verdict.Refuse({
        reason:
          first._tag === "Held"
            ? holdRefusal(first)
            : `${Asked.wordsOf(first)} requires the user's confirmation, and this client can answer neither input_required nor elicitation requests`,
      })
    }
    return yield* ask(settings, request, asked, binding)
  })
}

/**
 * What a question is sealed for: this call, by this caller. Among several services the router has
 * taken `service` out of the args: the binding names it, so that a question about a call on one
 * service never passes for the same call on another.
 */
const bindingOf = (request: Request, context: CallContext.CallContext): ConfirmationState.Binding => ({
  tool: request.tool,
  selector: request.invocation.selector,
  args: request.args,
  principal: CallContext.bindingPrincipalOf(context),
  ...(Option.isSome(context.service) ? { service: context.service.value } : {}),
})

/**
 * An accept: on the right, the verdict (sent once when its state was sealed for this very call and
 * is unused; refused when the call went out already or the store did not answer); on the left, an
 * accept not honoured, to be asked again, nothing sent.
 */
const honour = (
  settings: Settings,
  request: Request,
  binding: ConfirmationState.Binding,
): Effect.Effect<Either.Either<Verdict, void>> => {
  const notHonoured = (reason: string) =>
    Effect.as(
      Effect.logInfo(
        `${request.tool} ${request.invocation.selector}: an accept without a valid confirmation state (${reason}); asked again, nothing sent`,
      ),
      Either.left(undefined),
    )
  if (request.echoedState === undefined) return notHonoured("NoState")
  return settings.states.verify(request.echoedState, binding).pipe(
    Effect.map((honoured) => Either.right(Verdict.SendOnce({ markSent: honoured.sent }))),
    Effect.catchTags({
      ConfirmationUnrecorded: (error) =>
        Effect.succeed(Either.right(Verdict.Refuse({ reason: storeDidNotAnswer(error) }))),
      StateRefused: ({ reason }) =>
        reason === "Sent"
          ? Effect.succeed(Either.right(Verdict.Refuse({ reason: SENT_ALREADY })))
          : notHonoured(reason),
    }),
  )
}

/** The question, with a state sealed for this call; nothing is sent. */
const ask = (settings: Settings, request: Request, asked: Asked.Asked, binding: ConfirmationState.Binding) =>
  Effect.gen(function* () {
    const { invocation } = request
    // The question (which may read the target) and its record in the shared store, side by side: neither waits
    // for the other's round trip. A question that fails leaves a record unanswered, which expires with its state.
    const [question, state] = yield* Effect.all(
      [
        Question.message({
          invocation,
          asked,
          revealSecrets: settings.revealSecrets,
          names: settings.names,
        }).pipe(Effect.catchAllDefect(() => new QuestionUnprepared())),
        Effect.either(settings.states.seal(binding)),
      ],
      { concurrency: 2 },
    )
    if (Either.isLeft(state)) return Verdict.Refuse({ reason: storeDidNotAnswer(state.left) })
    const first = Asked.first(asked)
    const asker = first._tag === "Held" ? Asked.settingOf(first) : `${first.setting} ${first.pattern}`
    return Verdict.Ask({ question, state: state.right, recorded: `awaiting the user's confirmation (${asker})` })
  })
