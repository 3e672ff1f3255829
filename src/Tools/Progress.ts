/**
 * Where a call that waits reports how far it has come. A channel of the call,
 * not a dependency of the program: a call whose client gave no progress token
 * gets the "off" implementation, which drops every report, and the adapter
 * provides one that notifies the client when it did.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export interface ProgressShape {
  readonly report: (progress: number, message: string) => Effect.Effect<void>
}

/** Reports go nowhere. */
export const off: ProgressShape = { report: () => Effect.void }

export class Progress extends Context.Reference<Progress>()("svc-mcp/Progress", {
  defaultValue: (): ProgressShape => off,
}) {}
