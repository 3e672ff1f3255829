/**
 * What every step of a call shares: what the handler prepared once (the settings, the policy,
 * the record, the readers), how a rendered answer becomes MCP's result, and how a call refused
 * before anything is sent is recorded and answered.
 */
import type { CallToolResult } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Flow from "../../Confirmation/Flow.js"
import type { SecretPagesShape } from "../../Confirmation/SecretPages.js"
import type * as CallRecord from "../../Operations/CallRecord.js"
import type { ServerSettingsShape } from "../../Settings/ToolSettings.js"
import { ToolDeniedError } from "../../Tools/Catalog/ToolError.js"
import type { Call, Invocation, Readers } from "../../Tools/Invoke.js"
import type { PolicyShape } from "../../Tools/Policy/Policy.js"
import { failure, type Rendered, unrecorded } from "../../Tools/Render.js"
import type * as Guard from "../../Untrusted/Guard.js"
import * as Guarded from "./Guarded.js"

export const toResult = (rendered: Rendered): CallToolResult => {
  const structured = rendered.structured ?? rendered.structuredData
  return {
    content: [{ type: "text", text: rendered.text }],
    ...(rendered.isError ? { isError: true } : {}),
    ...(structured === undefined ? {} : { structuredContent: structured as Record<string, unknown> }),
    ...(rendered.meta === undefined ? {} : { _meta: rendered.meta as Record<string, unknown> }),
  }
}

/** What does not change between calls, read once by `make`; each step of a call reads it. */
export interface Prepared {
  readonly policy: PolicyShape
  readonly settings: ServerSettingsShape
  readonly record: CallRecord.CallRecorder
  /** What the confirmation reads: the states' seal, and how the settings are named among several services. */
  readonly confirmation: Flow.Settings
  /** SVC_GUARD: optional, in force when its layer is provided and on. */
  readonly guard: Option.Option<Guard.GuardShape>
  /**
   * What the tool's program reads: the default page (learned once from this server's own client;
   * not a layer of its own, so it cannot come from another client), the names of ids (as the
   * client's bundle reads them per caller) and the service's own check (among several services).
   * Given to the program as they are, not provided: a service provided is a step of every call.
   */
  readonly readers: Readers
  /** The pages a secret is handed to the person on (Handover.ts). */
  readonly pages: SecretPagesShape
}

/** A call refused before anything is sent: the refusal recorded, then answered. */
export const recordRefusal = ({ record }: Prepared, denied: ToolDeniedError, args: unknown) =>
  record.refused(denied, args).pipe(
    Effect.as(failure(denied)),
    Effect.catchTag("AuditError", (error) => Effect.succeed(unrecorded(error))),
    Effect.map(toResult),
  )

/** The error that records a call not sent, for `reason`. */
export const notSent = (call: Call, invocation: Invocation, reason: string) =>
  new ToolDeniedError({ tool: call.tool.name, selector: invocation.selector, endpoint: invocation.endpoint, reason })

/**
 * A rendered answer as MCP's result, once what it read of an untrusted source is noted for the guard;
 * with no guard, or nothing untrusted read, at once (the step of a note not made is every call's).
 */
export const finish = (prepared: Prepared, rendered: Rendered): Effect.Effect<CallToolResult> =>
  Option.isNone(prepared.guard) || rendered.untrusted === undefined
    ? Effect.succeed(toResult(rendered))
    : Effect.as(Guarded.noteRead(prepared.guard, rendered.untrusted), toResult(rendered))
