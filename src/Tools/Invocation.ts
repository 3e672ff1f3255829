/**
 * What a tool call resolves to (its endpoint, body and how it is answered) and what it answers with:
 * the types the tools' program, the rendering and the adapter share.
 */
import type { Shown } from "../Call/Shown.js"
import type { NameMaps } from "./Names/Names.js"
import type * as View from "./View.js"

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
