/**
 * What a tool call resolves to (its endpoint, body and how it is answered), what it answers with,
 * and what its program reads: the types the tools' program, the rendering and the adapter share.
 */
import type * as Context from "effect/Context"
import type * as Either from "effect/Either"
import type { Shown } from "../Call/Shown.js"
import type { Tool } from "./Catalog/Tool.js"
import type { ToolInputError } from "./Catalog/ToolError.js"
import type { DefaultPageShape } from "./Lists/Pages.js"
import type { NameMaps, Names } from "./Names/Names.js"
import type { ParamsCheckShape } from "./Params/ParamsCheck.js"
import type { AccessSettings } from "./Policy/AccessChanges.js"
import type * as View from "./View.js"
import type { Pace } from "./Wait.js"

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
  /** How the answer is to be shown, resolved once with the call (Call/Shown.ts, View.ts `ask`). */
  readonly shown: Shown
  /** The dotted paths of the answer to keep (`shown`'s, where it is Shaped), applied when it is rendered. */
  readonly fields?: ReadonlyArray<string>
  /** `from_person`: the secret params the person gives on a page; `body` holds a placeholder for each until then. */
  readonly fromPerson?: ReadonlyArray<string>
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
  /** The record's list item, read beside it for what only the list says: its state (Records/Listed.ts). */
  readonly listed?: Readonly<Record<string, unknown>>
  /** The byte cap the service's answer was cut at (SVC_MAX_ANSWER_BYTES): `data` is what arrived of it. */
  readonly cut?: number
  /** How the answer is shown, chosen once by the tools' program (View.ts `choose`): what rendering writes. */
  readonly view: View.View
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

/** What a call's program reads of the settings: the pace of a wait, and whether access changes are kept away. */
export type RunSettings = Pace & AccessSettings

/** What a call's program reads besides the client: the service's default page, the names of ids, the params check. */
export interface Readers {
  readonly pages: DefaultPageShape
  readonly names: Context.Tag.Service<Names>
  readonly check: ParamsCheckShape
}
