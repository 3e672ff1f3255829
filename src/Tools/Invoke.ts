/**
 * The one program behind every tool: decode the arguments with the tool's
 * schema, pick the endpoint the selector names, call it once. A call is
 * decoded once (`resolveCall`); each later stage reads what that found.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { SvcError } from "../Service/Errors.js"
import { Naming } from "../Settings/Naming.js"
import { DEFAULT_SETTINGS } from "../Settings/Policy.js"
import { isObject } from "../Shared/JsonShape.js"
import { type Group, SvcClient, type SvcClientShape } from "../SvcClient.js"
import { problemsOf } from "./Catalog/Problems.js"
import { pathOf, type Tool, targetOf } from "./Catalog/Tool.js"
import { ToolCallError, ToolDeniedError, ToolInputError, ToolParamsError } from "./Catalog/ToolError.js"
import { fieldsOf } from "./FieldPaths.js"
import { DefaultPage, type DefaultPageShape, PAGINATED } from "./Lists/Pages.js"
import { kindsChangedBy, type NameMaps, Names } from "./Names/Names.js"
import { withPattern } from "./Params/BatchPattern.js"
import * as ParamsCheck from "./Params/ParamsCheck.js"
import { type AccessSettings, syncRefusal } from "./Policy/AccessChanges.js"
import { EMPTY_LOGS, isEmptyLog } from "./Records/EmptyLog.js"
import { executedLine } from "./Records/Executed.js"
import { isNothing, READ_BACKS, type ReadBack } from "./Records/ReadBack.js"
import * as StackDrift from "./Records/StackDrift.js"
import * as Stale from "./Records/Stale.js"
import * as SchemaHelp from "./SchemaHelp.js"
import * as View from "./View.js"
import { follow, isUpdate, type Pace } from "./Wait.js"

export interface Invocation {
  readonly tool: string
  /** svc_execute: follow the execution to its end. */
  readonly wait: boolean
  /** Answer the selector's params schema instead of calling. */
  readonly schema: boolean
  /** `schema: "Name"`: the shape a schema answer named, answered in place of the selector's. */
  readonly shape?: string
  readonly selectorKey: string
  readonly selector: string
  /** `group/Endpoint`, e.g. `read/GetStack`. */
  readonly endpoint: string
  readonly body: Readonly<Record<string, unknown>>
  /** The dotted paths of the answer to keep, applied when it is rendered. */
  readonly fields?: ReadonlyArray<string>
  /** `fields: ["*"]`: the service's whole answer, as it came. */
  readonly whole?: boolean
}

export interface ToolSuccess extends Invocation {
  readonly data: unknown
  /** The service's body as sent, when `data` is exactly its JSON. */
  readonly text?: string
  /** For a call that waited: whether the execution succeeded, in a sentence. */
  readonly summary?: string
  /** A paginated list asked without `limit`: the service's default page, which the answer may have filled. */
  readonly page?: number
  /** The names of the ids the rendered answer shows, as this caller may see them (Names.ts). */
  readonly names?: NameMaps
  /** The byte cap the service's answer was cut at (SVC_MAX_ANSWER_BYTES): `data` is what arrived of it. */
  readonly cut?: number
  /** How the answer is shown, chosen once (View.ts); chosen when it is rendered where not given. */
  readonly view?: View.View
}

/** The tools that change resources, whose names the names' cache may hold. */
const CHANGES: ReadonlySet<string> = new Set(["svc_create", "svc_update", "svc_delete", "svc_rename", "svc_copy"])

/** The `fields` path that keeps the whole answer, as the service gave it. */
export const WHOLE = "*"

const NO_NAMES: Effect.Effect<NameMaps | undefined> = Effect.succeed(undefined)

/**
 * The names the rendered answer will show, as its view needs them: a list's rows those its name
 * columns lack, a record's or an execution's glance those of its ids, `fields` those of the
 * resources' ids kept. None for a whole answer, or where names are off (`Names.layerOff`); most
 * answers show no ids to name, and read nothing.
 */
const namesFor = (
  view: View.View,
  invocation: Invocation,
  data: unknown,
  names: Context.Tag.Service<Names>,
): Effect.Effect<NameMaps | undefined> => {
  if (Option.isNone(names)) return NO_NAMES
  const kinds = View.kindsOf(view, data, invocation.body)
  return kinds.length === 0 ? NO_NAMES : names.value.lookup(kinds)
}

/**
 * The first line an answer's own findings make: an execution answered at once says what it did and
 * found (Executed.ts); an empty log, why (EmptyLog.ts); resources on a server that cannot be reached, since when.
 */
const firstLine = (
  invocation: Invocation,
  data: unknown,
  shown: NameMaps | undefined,
  client: SvcClientShape,
  names: Context.Tag.Service<Names>,
): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    const done = executedLine(invocation.endpoint, data, shown)
    if (done !== undefined) return done
    const empty = isEmptyLog(data) ? EMPTY_LOGS[invocation.endpoint] : undefined
    const why = empty === undefined ? undefined : yield* readBackOf(empty, invocation.body, client, names)
    if (why !== undefined && !isNothing(why.data)) return why.summary
    return yield* Stale.noteOf(invocation.endpoint, data, (endpoint, body) => client.call("read", endpoint, body))
  })

/** What a change answered with nothing now holds, read back (ReadBack.ts); said so where the read fails. */
const readBackOf = (
  back: ReadBack,
  body: Readonly<Record<string, unknown>>,
  client: SvcClientShape,
  names: Context.Tag.Service<Names>,
): Effect.Effect<Pick<ToolSuccess, "data" | "summary" | "view">> =>
  Effect.gen(function* () {
    const read = back.read(body)
    if (read === undefined) return { data: {}, view: View.View.Whole() }
    const [group, endpoint] = read.endpoint.split("/") as [Group, string]
    const answer = yield* Effect.either(client.call(group, endpoint, read.body))
    if (Either.isLeft(answer) || !(isObject(answer.right) || Array.isArray(answer.right))) {
      const why = Either.isLeft(answer) ? `: ${answer.left.message}` : ""
      return {
        data: {},
        summary: `[svc-mcp: the service answered nothing; reading back ${read.endpoint} failed${why}]`,
        view: View.View.Whole(),
      }
    }
    const kinds = back.kinds(answer.right, body)
    const maps = kinds.length === 0 || Option.isNone(names) ? {} : yield* names.value.lookup(kinds)
    const said = back.said(answer.right, body, maps)
    return { data: said.value, summary: said.line, view: View.View.Whole() }
  })

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

/** Decodes and resolves a call without sending it. */
export const resolve = (tool: Tool, given: unknown): Either.Either<Invocation, ToolInputError> => {
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
  const body = query !== undefined && params.terms === undefined ? { ...params, terms: [query] } : params
  return Either.right({
    tool: tool.name,
    wait: wait === true,
    schema: schema === true || typeof schema === "string",
    ...(typeof schema === "string" ? { shape: schema } : {}),
    selectorKey: tool.selectorKey,
    selector,
    endpoint: pathOf(tool, selector),
    body,
    // An empty list is taken as absent, as a null is; a schema answer is never shaped.
    ...(fields === undefined || fields.length === 0 || schema === true || typeof schema === "string"
      ? {}
      : fields.includes(WHOLE)
        ? { whole: true }
        : { fields: fieldsOf(tool, selector, fields) }),
  })
}

/** One `tools/call` of a published tool, resolved once: what every stage after the adapter reads. */
export interface Call {
  readonly tool: Tool
  /** The arguments as the client sent them. */
  readonly args: unknown
  /** The selector as sent, when it is a string: recorded even when the arguments do not decode. */
  readonly selector: string | undefined
  /** The call decoded, or why its arguments do not decode. */
  readonly invocation: Either.Either<Invocation, ToolInputError>
}

export const resolveCall = (tool: Tool, args: unknown): Call => {
  const selector = isObject(args) ? args[tool.selectorKey] : undefined
  return {
    tool,
    args,
    selector: typeof selector === "string" ? selector : undefined,
    invocation: resolve(tool, args),
  }
}

/**
 * Whether a resolved call would be sent: its arguments decode, it is no `schema: true` call (which
 * sends nothing), and the endpoint's definition accepts its params (the check `runWith` makes
 * before sending). A question is asked only of a call that would be sent.
 */
export const wouldSend = (call: Call, check: ParamsCheck.ParamsCheckShape): Effect.Effect<boolean> => {
  if (Either.isLeft(call.invocation)) return Effect.succeed(false)
  const invocation = call.invocation.right
  if (invocation.schema) return Effect.succeed(false)
  return Effect.map(checkParams(check, invocation.endpoint, invocation.body), (checked) => checked._tag !== "Invalid")
}

/** The endpoint's definition's check of `body`, then a batch's pattern's (BatchPattern.ts). */
const checkParams = (check: ParamsCheck.ParamsCheckShape, endpoint: string, body: Invocation["body"]) =>
  Effect.flatMap(check.check(endpoint, body), (checked) => withPattern(endpoint, checked, check))

type Failure = ToolInputError | ToolParamsError | ToolCallError | ToolDeniedError

/** What a call's program reads of the settings: the pace of a wait, and whether access changes are kept away. */
export type RunSettings = Pace & AccessSettings

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
): Effect.Effect<ToolSuccess, Failure, SvcClient | DefaultPage | ParamsCheck.ParamsCheck | Names> =>
  run(resolveCall(tool, args), pace)

/** What a call's program reads besides the client: the service's default page, the names of ids, the params check. */
export interface Readers {
  readonly pages: DefaultPageShape
  readonly names: Context.Tag.Service<Names>
  readonly check: ParamsCheck.ParamsCheckShape
}

/** Runs a resolved call: checks its params, sends it, follows what it started when asked to. */
export const run = (
  call: Call,
  pace: Pace = DEFAULT_SETTINGS,
): Effect.Effect<ToolSuccess, Failure, SvcClient | DefaultPage | ParamsCheck.ParamsCheck | Names> =>
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

/**
 * `run`, with what it reads given: the server gives what it prepared once, rather than provide it
 * to every call (a service provided is a step of every call).
 */
export const runWith = (
  call: Call,
  pace: RunSettings,
  { pages, names, check }: Readers,
): Effect.Effect<ToolSuccess, Failure, SvcClient> =>
  Effect.gen(function* () {
    const { tool } = call
    const resolved = yield* Either.isLeft(call.invocation) ? beyondReach(call, call.invocation.left) : call.invocation
    if (resolved.schema) {
      return { ...resolved, data: SchemaHelp.of(tool, resolved, yield* check.describe(resolved.endpoint)) }
    }
    const checked = yield* checkParams(check, resolved.endpoint, resolved.body)
    if (checked._tag === "Invalid") return yield* paramsError(tool, resolved, checked)
    const invocation = checked.body === resolved.body ? resolved : { ...resolved, body: checked.body }
    const told = toldWith(checked._tag === "Valid" ? checked.respelled : undefined)
    const client = yield* SvcClient
    const { group, endpoint } = targetOf(tool, invocation.selector)
    // A sync's run or commit is refused on its pending plan while access changes are kept away.
    const refused = yield* syncRefusal(client, endpoint, invocation.body, pace, (yield* Naming).variable)
    if (refused !== undefined) {
      const { selector } = invocation
      return yield* new ToolDeniedError({ tool: tool.name, selector, endpoint: invocation.endpoint, reason: refused })
    }
    const failed = (error: SvcError) => callError(tool, invocation, error)
    const reply = yield* client.answer(group, endpoint, invocation.body).pipe(Effect.mapError(failed))
    const { text } = reply
    // A stack's drift asked for by `fields` is made beside its record, with the diff of its files.
    const data = StackDrift.asks(invocation.endpoint, invocation.fields)
      ? yield* StackDrift.withDiff(reply.value)
      : reply.value
    // The server's own change of a name is shown by the next answer, not 30 s later.
    if (CHANGES.has(tool.name) && Option.isSome(names)) yield* names.value.renew(kindsChangedBy(invocation.selector))
    // A change answered with nothing says what now holds, read back once.
    const back = invocation.fields === undefined && invocation.whole !== true && isNothing(data)
    const readBack = back ? READ_BACKS[invocation.endpoint] : undefined
    if (readBack !== undefined)
      return told({ ...invocation, ...(yield* readBackOf(readBack, invocation.body, client, names)) })
    // A rename of a resource answers an Update: followed like a wait, so that its outcome is said plainly.
    if (!invocation.wait && !(group === "write" && isUpdate(data))) {
      const paged = PAGINATED.has(invocation.endpoint) && invocation.body.limit === undefined
      const view = View.choose(tool, invocation, data, text)
      const shown = yield* namesFor(view, invocation, data, names)
      const named = {
        view,
        ...(shown === undefined ? {} : { names: shown }),
        ...(reply.cut === undefined ? {} : { cut: reply.cut }),
      }
      const said =
        invocation.fields === undefined ? yield* firstLine(invocation, data, shown, client, names) : undefined
      const lead = said === undefined ? {} : { summary: said }
      // A default page has at least one item: an empty list needs no note, nor the read of the page.
      if (paged && Array.isArray(data) && data.length > 0) {
        const page = yield* pages.size
        return told({ ...invocation, data, text, page, ...named, ...lead })
      }
      return told({ ...invocation, data, text, ...named, ...lead })
    }
    // An execution's result at a glance shows the Update's id; the whole Update, and a rename's, are named by it.
    const glance = View.glancesAtExecution(tool, invocation)
    const waited = yield* follow(data, pace, invocation.endpoint, !glance).pipe(Effect.mapError(failed))
    const view = View.choose(tool, invocation, waited.data)
    const shown = yield* namesFor(view, invocation, waited.data, names)
    return told({
      ...invocation,
      data: waited.data,
      summary: executedLine(invocation.endpoint, waited.data, shown) ?? waited.summary,
      view,
      ...(shown === undefined ? {} : { names: shown }),
    })
  })
