/**
 * The confirmation's question (SVC_CONFIRM): what the call will do, in words
 * a user can judge before anything is sent. An update shows each changed
 * field's current and new value, read with the get of the same resource type;
 * a delete, a batch, a sync run, and SVC_REACH=all's changes of meta, files
 * and access show their plan (Plan.ts). Among several services it names the
 * service and that service's own setting.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Asked from "../Call/Asked.js"
import * as CallContext from "../Call/Context.js"
import { isObject } from "../Shared/JsonShape.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import { oneLine, quote, word } from "../Shared/Quote.js"
import { REDACTED } from "../Shared/Secrets.js"
import { SvcClient } from "../SvcClient.js"
import { redact } from "../Tools/Bounds/AnswerBounds.js"
import { isSecretParam } from "../Tools/Bounds/SecretParams.js"
import * as Tables from "../Tools/Catalog/Tables.js"
import type { Invocation } from "../Tools/Invoke.js"
import type { NameKind, NameMaps, NamesShape } from "../Tools/Names/Names.js"
import { SHOWN_ONCE } from "../Tools/Policy/Policy.js"
import * as DeployPlan from "./DeployPlan.js"
import * as Plan from "./Plan.js"
import * as PrunePlan from "./PrunePlan.js"
import * as References from "./References.js"

export interface Question {
  readonly invocation: Invocation
  /**
   * Why the call is asked (Call/Asked.ts, resolved once): the setting and its pattern, what the call
   * touches that the pattern names, and the guard's hold (what the caller read before this call).
   */
  readonly asked?: Asked.Asked | undefined
  readonly revealSecrets: boolean
  /** The names of ids (Tools/Names/Names.ts), shown for the ids on both sides of a change; None shows ids. */
  readonly names?: Option.Option<NamesShape> | undefined
}

/** Fields of an update whose values are ids of a kind with names: shown by name, before and after alike. */
const ID_FIELDS: Readonly<Record<string, NameKind>> = {
  server_id: "server",
  builder_id: "builder",
  tags: "tag",
  match_tags: "tag",
}

/** A field's value with each id that has a name shown as the name; a value given by name stays as given. */
const named = (maps: NameMaps, field: string, value: unknown): unknown => {
  const kind = ID_FIELDS[field]
  const map = kind === undefined ? undefined : maps[kind]
  if (map === undefined) return value
  const one = (v: unknown) => (typeof v === "string" ? (map.get(v) ?? v) : v)
  return Array.isArray(value) ? value.map(one) : one(value)
}

/** The names of the kinds the changed fields hold ids of, read once (and kept) per caller. */
const namesFor = (question: Question, fields: ReadonlyArray<string>): Effect.Effect<NameMaps> => {
  const kinds = [...new Set(fields.flatMap((f) => (ID_FIELDS[f] === undefined ? [] : [ID_FIELDS[f]])))]
  const names = question.names ?? Option.none()
  return kinds.length === 0 || Option.isNone(names) ? Effect.succeed({}) : names.value.lookup(kinds)
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

/** A value on its one line: a string quoted, anything else as JSON, escaped and cut alike. */
const shown = (value: unknown) =>
  value === undefined
    ? "(not set)"
    : typeof value === "string"
      ? quote(value)
      : oneLine(JSON.stringify(value) ?? String(value))

/** The most fields of an update its question lists; the rest are counted. */
const FIELDS = 30

/**
 * For an update: each changed field's current and new value. The current
 * record is read with the get endpoint of the same resource type (Tables.get);
 * secrets are shown as they would be in an answer.
 */
const changes = (question: Question): Effect.Effect<ReadonlyArray<string>, never, SvcClient> =>
  Effect.gen(function* () {
    const { invocation, revealSecrets } = question
    const getEndpoint = (Tables.get as Readonly<Record<string, string>>)[invocation.selector]
    const body = invocation.body
    // Update bodies name the resource by id (most), tag, or name (variables).
    const key = ["id", "tag", "name", "user_group"].find((k) => typeof body[k] === "string")
    // The new values: a `config` or `account` object, or the one field beside the name (a tag's colour, a variable's value).
    const payloadKey = isObject(body.config) ? "config" : isObject(body.account) ? "account" : undefined
    const next: Record<string, unknown> =
      payloadKey === undefined
        ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== key))
        : (body[payloadKey] as Record<string, unknown>)
    let current: Record<string, unknown> | undefined
    let unread = ""
    if (getEndpoint !== undefined && key !== undefined) {
      const record = yield* SvcClient.pipe(
        // Whole or not at all: a record cut short would show its later fields as not set.
        Effect.flatMap((client) => client.call("read", getEndpoint, { [key]: body[key] }, "whole")),
        Effect.either,
      )
      if (record._tag === "Right" && isObject(record.right)) {
        const secretVariable = record.right.is_secret === true
        const fields = payloadKey === "config" && isObject(record.right.config) ? record.right.config : record.right
        current = revealSecrets ? fields : (redact(fields) as Record<string, unknown>)
        if (secretVariable && !revealSecrets) current = { ...current, value: REDACTED }
      } else {
        unread = ` (the current record could not be read${record._tag === "Left" ? `: ${oneLine(record.left.message)}` : ""})`
      }
    }
    const shownNext = revealSecrets ? next : (redact(next) as Record<string, unknown>)
    const secretNext = current?.value === REDACTED && payloadKey === undefined
    const prefix = payloadKey === undefined ? "" : `${payloadKey}.`
    const maps = yield* namesFor(question, Object.keys(next))
    const fields = Object.keys(next)
    const lines = fields.slice(0, FIELDS).map((field) => {
      const now = current === undefined ? "" : `${shown(named(maps, field, current[field]))} -> `
      const then = secretNext && field === "value" ? REDACTED : shown(named(maps, field, shownNext[field]))
      return `  ${prefix}${word(field)}: ${now}${then}`
    })
    const rest = fields.length > FIELDS ? [`  … and ${fields.length - FIELDS} more fields`] : []
    return [`Changes${unread}:`, ...lines, ...rest]
  })

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
    // An update without a plan of its own shows each changed field.
    const planned = yield* Plan.make(
      invocation.tool,
      invocation.selector,
      invocation.body,
      question.names,
      question.revealSecrets,
    )
    const pruned = Option.isSome(planned) ? Option.none() : yield* PrunePlan.make(invocation.endpoint, invocation.body)
    const deployed = Option.isSome(planned)
      ? Option.none()
      : yield* DeployPlan.make(invocation.endpoint, invocation.body)
    const detail = Option.isSome(planned)
      ? [planned.value.text, ...(yield* DeployPlan.batch(planned.value.plan))]
      : Option.isSome(pruned) || Option.isSome(deployed)
        ? [...Option.getOrElse(pruned, () => []), ...Option.getOrElse(deployed, () => [])]
        : invocation.tool === "svc_update"
          ? yield* changes(question)
          : []
    const referring =
      invocation.tool === "svc_delete" ? yield* References.make(invocation.selector, invocation.body) : []
    const { asked, told } = askedWords(question.asked, invocation.endpoint)
    return [head, ...detail, ...referring, ...told, `Send it? (${asked}; nothing is sent unless you accept)`].join("\n")
  })
