/**
 * The one program behind every tool: decode the arguments with the tool's
 * schema, pick the endpoint the selector names, call it once. A call is
 * decoded once (`resolveCall`); each later stage reads what that found.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { YieldWrap } from "effect/Utils"
import type { SvcError } from "../Service/Errors.js"
import { Naming } from "../Settings/Naming.js"
import { DEFAULT_SETTINGS, type ServerSettingsShape } from "../Settings/ToolSettings.js"
import { isObject } from "../Shared/JsonShape.js"
import type { PatternReader } from "../Shared/PatternReader.js"
import { type Group, type Reply, SvcClient, type SvcClientShape } from "../SvcClient.js"
import { firstLine, namesFor, readBackOf, shownWith } from "./Beside.js"
import { problemsOf } from "./Catalog/Problems.js"
import { pathOf, type Tool, targetOf } from "./Catalog/Tool.js"
import { ToolCallError, ToolDeniedError, ToolInputError, ToolParamsError } from "./Catalog/ToolError.js"
import type { Call, Invocation, Readers, RunSettings, ToolSuccess } from "./Invocation.js"
import { DefaultPage } from "./Lists/Pages.js"
import { Names } from "./Names/Names.js"
import { withPattern } from "./Params/BatchPattern.js"
import * as FromPerson from "./Params/FromPerson.js"
import * as ParamsCheck from "./Params/ParamsCheck.js"
import * as CallerAccess from "./Policy/CallerAccess.js"
import { isNothing } from "./Records/ReadBack.js"
import { type ReadsBeside, readsBeside } from "./Records/ReadsBeside.js"
import * as StackDrift from "./Records/StackDrift.js"
import * as SchemaHelp from "./SchemaHelp.js"
import * as View from "./View.js"
import { follow, isUpdate, type Pace } from "./Wait.js"

export type { Call, Invocation, Readers, RunSettings, ToolSuccess } from "./Invocation.js"

/**
 * A JSON null for an argument counts as absent: clients that make every field
 * required send null for those they leave out.
 */
const withoutNulls = (args: unknown): unknown => {
  if (args === null || args === undefined) return {}
  if (typeof args !== "object" || Array.isArray(args)) return args
  const entries = Object.entries(args)
  return entries.some(([, value]) => value === null)
    ? Object.fromEntries(entries.filter(([, value]) => value !== null))
    : args
}

/**
 * `schema: true` needs the selector alone: a tool's other required argument (svc_search_logs'
 * `query`) says nothing of the params' shape. The published schema keeps it required, so it is
 * filled for the decode only and sent nowhere.
 */
const schemaOnly = (tool: Tool, args: unknown): unknown =>
  tool.query !== undefined &&
  isObject(args) &&
  (args.schema === true || typeof args.schema === "string") &&
  !Object.hasOwn(args, "query")
    ? { ...args, query: "" }
    : args

/**
 * Params the service requires that a call may leave out, and what is sent for them: a stack's
 * logs (GetStackLog, SearchStackLog) take `services`, where `[]` means every service.
 */
const FILLED: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  GetStackLog: { services: [] },
  SearchStackLog: { services: [] },
}

/** The settings that fill in what a call leaves out. */
export type Filling = Pick<ServerSettingsShape, "logTimestamps">

/** What the settings fill in where `tool`'s call does not say: SVC_LOG_TIMESTAMPS, svc_logs' `timestamps`. */
const settled = (tool: Tool, settings: Filling): Readonly<Record<string, unknown>> =>
  tool.name === "svc_logs" && settings.logTimestamps ? { timestamps: true } : {}

const filledIn = (
  endpoint: string,
  params: Readonly<Record<string, unknown>>,
  settled: Readonly<Record<string, unknown>>,
) => {
  const defaults = { ...FILLED[endpoint], ...settled }
  const missing = Object.entries(defaults).filter(([key]) => params[key] === undefined)
  return missing.length === 0 ? params : { ...Object.fromEntries(missing), ...params }
}

/** Decodes and resolves a call without sending it; `settings` fill in what it leaves out. */
export const resolve = (
  tool: Tool,
  given: unknown,
  settings: Filling = DEFAULT_SETTINGS,
): Either.Either<Invocation, ToolInputError> => {
  // A client may send no arguments at all; that is the same as an empty object.
  const args = withoutNulls(given)
  const filled = schemaOnly(tool, args)
  const decoded = tool.decode(filled)
  if (Either.isLeft(decoded)) {
    return Either.left(new ToolInputError({ tool: tool.name, problems: problemsOf(tool, args, decoded.left) }))
  }
  const { params, wait, schema, fields } = decoded.right
  const query = filled === args ? decoded.right.query : undefined
  const selector = decoded.right[tool.selectorKey] as string
  const asked = schema === true || typeof schema === "string"
  const fromPerson = asked ? [] : (decoded.right.from_person ?? [])
  // What may be named is checked before anything is asked (TakeIn.ts), against the params as given.
  const withPlaceholders =
    fromPerson.length === 0 ? params : FromPerson.filled(params, FromPerson.placeholders(fromPerson))
  const sent = filledIn(tool.endpoints[selector] ?? "", withPlaceholders, settled(tool, settings))
  const body = query !== undefined && sent.terms === undefined ? { ...sent, terms: [query] } : sent
  // How the answer is shown, resolved once here; a schema answer is never shaped.
  const shown = View.ask(tool, selector, asked, fields)
  return Either.right({
    tool: tool.name,
    wait: wait === true,
    schema: asked,
    ...(typeof schema === "string" ? { shape: schema } : {}),
    selectorKey: tool.selectorKey,
    selector,
    endpoint: pathOf(tool, selector),
    body,
    shown,
    ...(shown._tag === "Shaped" ? { fields: shown.fields } : {}),
    ...(fromPerson.length === 0 ? {} : { fromPerson }),
  })
}

export const resolveCall = (tool: Tool, args: unknown, settings: Filling = DEFAULT_SETTINGS): Call => {
  const selector = isObject(args) ? args[tool.selectorKey] : undefined
  return {
    tool,
    args,
    selector: typeof selector === "string" ? selector : undefined,
    invocation: resolve(tool, args, settings),
  }
}

/**
 * Whether a resolved call would be sent: its arguments decode, it is no `schema: true` call (which
 * sends nothing), and the endpoint's definition accepts its params (the check `runWith` makes
 * before sending). A question is asked only of a call that would be sent.
 */
export const wouldSend = (
  call: Call,
  check: ParamsCheck.ParamsCheckShape,
): Effect.Effect<boolean, never, PatternReader> => {
  if (Either.isLeft(call.invocation)) return Effect.succeed(false)
  const invocation = call.invocation.right
  if (invocation.schema) return Effect.succeed(false)
  return Effect.map(checkParams(check, invocation.endpoint, invocation.body), (checked) => checked._tag !== "Invalid")
}

/** The endpoint's definition's check of `body`, then a batch's pattern's (BatchPattern.ts). */
const checkParams = (check: ParamsCheck.ParamsCheckShape, endpoint: string, body: Invocation["body"]) =>
  Effect.flatMap(check.check(endpoint, body), (checked) => withPattern(endpoint, checked, check))

type Failure = ToolInputError | ToolParamsError | ToolCallError | ToolDeniedError

/**
 * A refused selector that SVC_REACH=all would offer (`svc_list alert`) is refused saying so. Its
 * table is read only then: a start with the default reach loads none of it.
 */
const beyondReach = (call: Call, error: ToolInputError): Effect.Effect<never, ToolInputError> => {
  const { tool, selector } = call
  if (selector === undefined || tool.selectors.includes(selector)) return Effect.fail(error)
  return Effect.flatMap(
    Effect.promise(() => import("./Catalog/TablesAll.js")),
    ({ byTool }) => {
      const added = byTool[tool.name]
      if (added === undefined || !Object.hasOwn(added, selector)) return Effect.fail(error)
      const offered = `${tool.selectorKey} ${JSON.stringify(selector)} is offered only with SVC_REACH=all (every endpoint of the service), which this server was not started with`
      return Effect.fail(new ToolInputError({ tool: error.tool, problems: [...error.problems, offered] }))
    },
  )
}

/** A success with the params' respelling (ParamsValidation.ts) said first, where they were respelled. */
const toldWith =
  (respelled: string | undefined) =>
  (success: ToolSuccess): ToolSuccess =>
    respelled === undefined
      ? success
      : { ...success, summary: success.summary === undefined ? respelled : `${respelled}\n${success.summary}` }

/** `pace`: how svc_execute with `wait` follows the execution (the server's settings when served). */
export const invoke = (
  tool: Tool,
  args: unknown,
  pace: Pace = DEFAULT_SETTINGS,
): Effect.Effect<ToolSuccess, Failure, SvcClient | PatternReader | DefaultPage | ParamsCheck.ParamsCheck | Names> =>
  run(resolveCall(tool, args), pace)

/** Runs a resolved call: checks its params, sends it, follows what it started when asked to. */
export const run = (
  call: Call,
  pace: Pace = DEFAULT_SETTINGS,
): Effect.Effect<ToolSuccess, Failure, SvcClient | PatternReader | DefaultPage | ParamsCheck.ParamsCheck | Names> =>
  Effect.flatMap(Effect.context<DefaultPage | ParamsCheck.ParamsCheck | Names>(), (context) =>
    runWith(call, pace, {
      pages: Context.get(context, DefaultPage),
      names: Context.get(context, Names),
      check: Context.get(context, ParamsCheck.ParamsCheck),
    }),
  )

const paramsError = (
  tool: Tool,
  resolved: Invocation,
  checked: { problems: ToolParamsError["problems"]; accepted: ToolParamsError["accepted"] },
) =>
  new ToolParamsError({
    tool: tool.name,
    selectorKey: tool.selectorKey,
    selector: resolved.selector,
    endpoint: resolved.endpoint,
    problems: checked.problems,
    accepted: checked.accepted,
  })

const callError = (tool: Tool, invocation: Invocation, error: SvcError) =>
  new ToolCallError({
    tool: tool.name,
    selectorKey: tool.selectorKey,
    selector: invocation.selector,
    endpoint: invocation.endpoint,
    error,
  })

/** What a sent call's answer is made into: `reply` is the service's answer to `invocation`. */
interface Answered {
  readonly tool: Tool
  readonly invocation: Invocation
  readonly group: Group
  readonly reply: Reply
  readonly pace: RunSettings
  readonly readers: Readers
  readonly client: SvcClientShape
}

/**
 * `run`, with what it reads given: the server gives what it prepared once, rather than provide it
 * to every call (a service provided is a step of every call).
 */
export const runWith = (
  call: Call,
  pace: RunSettings,
  readers: Readers,
): Effect.Effect<ToolSuccess, Failure, SvcClient | PatternReader> =>
  Effect.gen(function* () {
    const { tool } = call
    const resolved = yield* Either.isLeft(call.invocation) ? beyondReach(call, call.invocation.left) : call.invocation
    if (resolved.schema) {
      const data = SchemaHelp.of(tool, resolved, yield* readers.check.describe(resolved.endpoint))
      return { ...resolved, data, view: View.choose(tool, resolved, data) }
    }
    const checked = yield* checkParams(readers.check, resolved.endpoint, resolved.body)
    if (checked._tag === "Invalid") return yield* paramsError(tool, resolved, checked)
    const invocation = checked.body === resolved.body ? resolved : { ...resolved, body: checked.body }
    const told = toldWith(checked._tag === "Valid" ? checked.respelled : undefined)
    const client = yield* SvcClient
    const { group, endpoint } = targetOf(tool, invocation.selector)
    // A sync's run or commit is refused on its pending plan while access changes are kept away (always, for a minted person).
    const refused = yield* CallerAccess.refusal(client, endpoint, invocation.body, pace, (yield* Naming).variable)
    if (refused !== undefined) {
      const { selector } = invocation
      return yield* new ToolDeniedError({ tool: tool.name, selector, endpoint: invocation.endpoint, reason: refused })
    }
    const failed = (error: SvcError) => callError(tool, invocation, error)
    const reply = yield* client.answer(group, endpoint, invocation.body).pipe(Effect.mapError(failed))
    // Delegated, not run as an Effect of its own: a step of every call saved.
    return told(yield* answered({ tool, invocation, group, reply, pace, readers, client }))
  })

/** Steps of the tools' program delegated to from its generator (`yield*`), each an Effect's. */
type Steps<A> = Generator<YieldWrap<Effect.Effect<unknown, ToolCallError, SvcClient>>, A, unknown>

/**
 * The answer made of the service's reply: read back where a change answered nothing, followed
 * where it started an execution; its view chosen once (View.ts), and the names it shows read.
 * What else is read beside it is its endpoint's entry (Records/ReadsBeside.ts), looked up once.
 */
function* answered(at: Answered): Steps<ToolSuccess> {
  const { tool, invocation, reply, client } = at
  const { names } = at.readers
  const reads = readsBeside(invocation.endpoint)
  // A stack's drift asked for by `fields` is made beside its record, with the diff of its files.
  const data = reads.drift && StackDrift.asks(invocation.fields) ? yield* StackDrift.withDiff(reply.value) : reply.value
  // The server's own change of a name is shown by the next answer, not 30 s later.
  if (reads.renews !== undefined && Option.isSome(names)) yield* names.value.renew(reads.renews)
  // A change answered with nothing says what now holds, read back once.
  const readBack = invocation.shown._tag === "Glance" && isNothing(data) ? reads.readBack : undefined
  if (readBack !== undefined) return { ...invocation, ...(yield* readBackOf(readBack, invocation.body, client, names)) }
  // A rename of a resource answers an Update: followed like a wait, so that its outcome is said plainly.
  if (invocation.wait || (at.group === "write" && isUpdate(data))) return yield* followed(at, reads, data)
  const view = View.choose(tool, invocation, data, reply.text)
  const shown = yield* namesFor(view, invocation, data, names)
  const line = invocation.fields === undefined ? firstLine(reads, invocation, data, shown, client, names) : undefined
  const said = line === undefined ? undefined : yield* line
  // A default page has at least one item: an empty list needs no note, nor the read of the page.
  const paged = reads.paged && invocation.body.limit === undefined
  const page = paged && Array.isArray(data) && data.length > 0 ? yield* at.readers.pages.size : undefined
  return {
    ...invocation,
    data,
    text: reply.text,
    view,
    ...(page === undefined ? {} : { page }),
    ...(yield* shownWith(view, invocation, data, shown, client, reads)),
    ...(reply.cut === undefined ? {} : { cut: reply.cut }),
    ...(said === undefined ? {} : { summary: said }),
  }
}

/** An execution's Update followed to its end; at a glance it shows the Update's id, and the whole Update, and a rename's, are named by it. */
function* followed(at: Answered, reads: ReadsBeside, data: unknown): Steps<ToolSuccess> {
  const { tool, invocation } = at
  const glance = View.glancesAtExecution(tool, invocation)
  const waited = yield* follow(data, at.pace, invocation.endpoint, !glance).pipe(
    Effect.mapError((error) => callError(tool, invocation, error)),
  )
  const view = View.choose(tool, invocation, waited.data)
  const shown = yield* namesFor(view, invocation, waited.data, at.readers.names)
  return {
    ...invocation,
    data: waited.data,
    summary: reads.executed?.(waited.data, shown ?? {}) ?? waited.summary,
    view,
    ...(yield* shownWith(view, invocation, waited.data, shown, at.client, reads)),
  }
}
