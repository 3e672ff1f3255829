/**
 * A secret the service shows once, handed to the person, never to the model: where the client
 * declares URL-mode elicitation (MCP 2025-11-25 and 2026-07-28), a call that makes one (an API key
 * for a service user, an onboarding key) first asks the person to open a page of this server's
 * (Confirmation/SecretPages.ts). Accepted, the call is sent, its secret goes to that page, shown
 * once, and the answer says only that it was handed over, to whom, and until when the page is
 * open; declined, nothing is sent. The URL question is the consent: it stands for SVC_CONFIRM's.
 *
 * With sign-in the page is on the HTTP server and has an owner, the caller's identity: it signs
 * its person in first and opens only for them (SignIn/PageSignIn.ts). Where the pages have no
 * client to sign in with, a signed-in caller's secret stays withheld, as it is from a client
 * without URL mode, and the answer says where the person can make it themselves.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallContext from "../../Call/Context.js"
import type { Page, SecretPagesShape } from "../../Confirmation/SecretPages.js"
import { isObject } from "../../Shared/JsonShape.js"
import { quote } from "../../Shared/Quote.js"
import type { Invocation, ToolSuccess } from "../../Tools/Invoke.js"
import type { Incoming } from "./Incoming.js"

/** The key of the one question in `inputRequests` / `inputResponses`. */
const KEY = "secret"

/** How the `requestState` of a page's question begins; the page's id follows. */
const STATE = "secret-page:"

/** What the page shows instead of the answer, in the answer. */
const HANDED = "[handed to the person]"

interface Secret {
  /** What it makes, in words, with the call's name for it. */
  readonly what: (body: Readonly<Record<string, unknown>>) => string
  /** The answer's fields the page shows; `secret` among them are taken out of the answer. */
  readonly shown: ReadonlyArray<string>
  readonly secret: ReadonlyArray<string>
  /** Where the person makes one themselves, without the assistant. */
  readonly themselves: string
}

const named = (body: Readonly<Record<string, unknown>>, key: string) =>
  typeof body[key] === "string" ? ` ${JSON.stringify(body[key])}` : ""

/** The calls that make a secret the service shows once, by endpoint. */
const SECRETS: Readonly<Record<string, Secret>> = {
  "write/CreateApiKeyForServiceUser": {
    what: (body) => `the API key${named(body, "name")} for the service user${named(body, "user_id")}`,
    shown: ["key", "secret"],
    secret: ["secret"],
    themselves: "in the service's own UI, which shows its secret once",
  },
  "write/CreateOnboardingKey": {
    what: (body) => `the onboarding key${named(body, "name")}`,
    shown: ["private_key"],
    secret: ["private_key"],
    themselves: "in the service's own UI, which shows its private key once",
  },
}

/** Whether the client declared URL-mode elicitation, in this request (2026-07-28) or at initialize. */
export const canOpenUrl = ({ ctx, server }: Incoming): boolean => {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined
  const declared =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities()
  const elicitation = declared?.elicitation as Readonly<Record<string, unknown>> | undefined
  return elicitation?.url !== undefined
}

/** Whether the connection speaks the 2025 revision, whose URL elicitations carry an id and are told complete. */
export const legacy = ({ server }: Incoming) => (server.getNegotiatedProtocolVersion() ?? "") < "2026-07-28"

/** The elicitation's id on the 2025 revision: a digest of the page's id, which it does not give away. */
export const elicitationIdOf = (pageId: string): string =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(`elicitation:${pageId}`).digest("base64url")

/** Tells a 2025-era client that the elicitation of page `pageId` is complete; nothing on 2026-07-28. */
export const complete = (incoming: Incoming, pageId: string, related: boolean): void => {
  if (!legacy(incoming)) return
  const notification = {
    method: "notifications/elicitation/complete" as const,
    params: { elicitationId: elicitationIdOf(pageId) },
  }
  const sent = related ? incoming.ctx.mcpReq.notify(notification) : incoming.server.notification(notification)
  sent.catch(() => undefined)
}

/** The secret `invocation` makes, when it makes one. */
export const secretOf = (invocation: Invocation): Secret | undefined => SECRETS[invocation.endpoint]

/** Who a page is for: the caller, and over HTTP the session, that asked. */
export const bindingOf = (context: CallContext.CallContext): string =>
  JSON.stringify([CallContext.bindingPrincipalOf(context), Option.getOrElse(context.session, () => "")])

/** Whom a signed-in caller's page opens for: their issuer and subject; none without sign-in. */
export const ownerOf = (context: CallContext.CallContext): string | undefined =>
  Option.match(context.identity, {
    onNone: () => undefined,
    onSome: (identity) => JSON.stringify([identity.issuer, identity.subject]),
  })

/**
 * Whether this call is to hand its secret over by a page: it makes one, the client can open a
 * page, and none is signed in or the pages sign their person in.
 */
export const applies = (
  incoming: Incoming,
  invocation: Invocation,
  context: CallContext.CallContext,
  pages?: SecretPagesShape,
): boolean =>
  secretOf(invocation) !== undefined &&
  (Option.isNone(context.identity) || pages?.signedIn !== undefined) &&
  canOpenUrl(incoming)

const untilText = (until: number) => new Date(until).toISOString().replace(/\.\d{3}Z$/, "Z")

/** Where this call stands with its page: to ask the person, to send (the page accepted), or declined. */
export type Step =
  | { readonly _tag: "Ask" }
  | { readonly _tag: "Send"; readonly id: string; readonly until: number }
  | { readonly _tag: "Declined"; readonly id: string }
  | { readonly _tag: "Stale" }

/** The step of this call, from the answer and the state its retry echoed. */
export const stepOf = (pages: SecretPagesShape, incoming: Incoming, binding: string, now: number): Step => {
  const response = inputResponse(incoming.ctx.mcpReq.inputResponses, KEY)
  const state: unknown = incoming.ctx.mcpReq.requestState()
  if (response.kind !== "elicit" || typeof state !== "string" || !state.startsWith(STATE)) return { _tag: "Ask" }
  const id = state.slice(STATE.length)
  const until = pages.store.pending(id, binding, now)
  if (until === undefined) return { _tag: "Stale" }
  return response.action === "accept" ? { _tag: "Send", id, until } : { _tag: "Declined", id }
}

/** The question: open the page, for the call `what` names; with `owner`, a page that signs them in first. */
export const ask = async (
  pages: SecretPagesShape,
  invocation: Invocation,
  binding: string,
  now: number,
  owner?: string,
  incoming?: Incoming,
): Promise<InputRequiredResult> => {
  const made = pages.store.make(binding, now, owner)
  const signedIn = owner === undefined ? undefined : pages.signedIn
  const url = signedIn === undefined ? await pages.urlOf(made.id) : signedIn.urlOf(made.id)
  const what = (secretOf(invocation) as Secret).what(invocation.body)
  const signIn = signedIn === undefined ? "" : " (sign in there as yourself first: it opens for you alone)"
  return inputRequired({
    inputRequests: {
      [KEY]: inputRequired.elicitUrl({
        message: `Open this page of svc-mcp's${signIn} to make ${what} and see its secret there, once; the assistant does not see it. The page closes at ${untilText(made.until)}.`,
        url,
        ...(incoming !== undefined && legacy(incoming) ? { elicitationId: elicitationIdOf(made.id) } : {}),
      }),
    },
    requestState: `${STATE}${made.id}`,
  })
}

/** The answer's secrets taken out onto page `id`, shown once; the answer keeps `HANDED` in their place. */
export const take =
  (pages: SecretPagesShape, invocation: Invocation, id: string, binding: string, now: () => number) =>
  (outcome: ToolSuccess): ToolSuccess => {
    const secret = secretOf(invocation)
    if (secret === undefined || !isObject(outcome.data)) return outcome
    const data = outcome.data
    const fields = secret.shown
      .filter((key) => typeof data[key] === "string")
      .map((key) => ({ label: key, value: data[key] as string }))
    const page: Page = { title: `The secret of ${secret.what(invocation.body)}`, fields }
    pages.store.fill(id, binding, page, now())
    const kept = Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, secret.secret.includes(key) ? HANDED : value]),
    )
    // The service's text held the secret: the answer is rendered from `data` alone.
    const { text: _text, ...rest } = outcome
    return { ...rest, data: kept }
  }

/**
 * The call whose secret goes to page `id`, in its context: the audit line says which params were
 * handed over; a 2025-era client is told the elicitation is complete once the person reads the page.
 */
export const handing =
  (pages: SecretPagesShape, incoming: Incoming, invocation: Invocation, id: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    pages.store.whenShown?.(id, () => complete(incoming, id, false))
    const params = secretOf(invocation)?.secret ?? []
    return CallContext.locallyWith((context) => ({ ...context, secret: { passed: "handed" as const, params } }))(self)
  }

/** `result` with one more line, unless it is an error. */
export const appended = (result: CallToolResult, text: string): CallToolResult =>
  result.isError === true ? result : { ...result, content: [...result.content, { type: "text", text }] }

/** Whom the secret went to, as the model is told: the signed-in person by name, else the client's person. */
const whom = (context?: CallContext.CallContext) =>
  context === undefined || Option.isNone(context.identity)
    ? "the person using this client"
    : `${quote(context.identity.value.name)}, signed in,`

/** The model's answer, with a line saying the secret was handed over, to whom, and until when. */
export const told = (result: CallToolResult, until: number, context?: CallContext.CallContext): CallToolResult =>
  appended(
    result,
    `Its secret was handed to ${whom(context)} on a page of svc-mcp's, out of your sight; the page shows it once and is open until ${untilText(until)}. It is not in this answer: do not ask for it.`,
  )

/** The answer to a declined page: nothing was sent. */
export const declined = (invocation: Invocation): CallToolResult => ({
  content: [
    {
      type: "text",
      text: `The person declined the page for ${(secretOf(invocation) as Secret).what(invocation.body)}: nothing was sent, nothing was made.`,
    },
  ],
  isError: true,
})

/** The answer to a retry whose page is gone (closed, used, or another caller's): nothing was sent. */
export const stale: CallToolResult = {
  content: [
    {
      type: "text",
      text: "The page this retry answers has closed or is not this caller's: nothing was sent. Call again to be given a new one.",
    },
  ],
  isError: true,
}

/** What the answer says where the secret stays withheld: how the person can make it themselves. */
export const themselves = (invocation: Invocation): string | undefined => {
  const secret = secretOf(invocation)
  return secret === undefined
    ? undefined
    : `The secret is withheld from this answer. The person can make ${secret.what(invocation.body)} themselves ${secret.themselves}, or use a client that opens pages (URL-mode elicitation), where svc-mcp hands it to them.`
}
