/**
 * Tool calls among several services: the tools are published once, each with
 * an optional `service` (the first by default), and each call runs as a call
 * to that one service alone: its policy, its client, its credentials. The
 * service names the call's audit line, spans, metrics, log lines and errors.
 */
import type { CallToolResult } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Auth, type AuthShape } from "../../Auth.js"
import * as CallContext from "../../Call/Context.js"
import type { SecretPages } from "../../Confirmation/SecretPages.js"
import type { ConfirmationState } from "../../Confirmation/State.js"
import * as CallRecord from "../../Operations/CallRecord.js"
import { authOf, policyOf, type Service, Services, settingsOf } from "../../Registry/Registry.js"
import { isObject } from "../../Shared/JsonShape.js"
import { make as makeTool, pathOf, type Tool } from "../../Tools/Catalog/Tool.js"
import { ToolDeniedError } from "../../Tools/Catalog/ToolError.js"
import { Policy, toolsOf } from "../../Tools/Policy/Policy.js"
import { failure, unrecorded } from "../../Tools/Render.js"
import type { Guard } from "../../Untrusted/Guard.js"
import type { Incoming } from "./Incoming.js"
import type { Answer, Handler } from "./ToolCall.js"
import * as ToolCall from "./ToolCall.js"

export interface RouterShape {
  /** The tools as published: each offered by at least one service, with every selector one offers. */
  readonly tools: ReadonlyArray<Tool>
  readonly handle: Handler
}

/** In a few words, where a tool is not offered: `Not on staging (read-only).` */
const absence = (missing: ReadonlyArray<Service>) => {
  if (missing.length === 0) return ""
  const said = missing.map((s) => (settingsOf(s).mode === "read-only" ? `${s.name} (read-only)` : s.name))
  return ` Not on ${said.join(", ")}.`
}

/** The union of the services' published tools, in the tools' fixed order (`all`: the tools SVC_REACH gives). */
const publish = (services: ReadonlyArray<Service>, all: ReadonlyArray<Tool>): ReadonlyArray<Tool> => {
  const names = services.map((s) => s.name)
  return all.flatMap((tool) => {
    const offered = services.flatMap((s) => policyOf(s).tools.filter((t) => t.name === tool.name))
    if (offered.length === 0) return []
    const endpoints = Object.fromEntries(
      Object.entries(tool.endpoints).filter(([selector]) => offered.some((t) => Object.hasOwn(t.endpoints, selector))),
    )
    const missing = services.filter((s) => !policyOf(s).tools.some((t) => t.name === tool.name))
    return [
      makeTool({
        ...tool,
        endpoints,
        description: `${tool.description}${absence(missing)}`,
        // One service named alone takes no `service`: the schemas stay as a single service's.
        ...(names.length > 1 ? { services: names } : {}),
      }),
    ]
  })
}

/**
 * An error names the service it came from: its text ("prod: svc_list ... failed ...")
 * and its structured `error.service`. Its words were made for that service
 * already (SVC_STAGING_CONFIRM, X-Svc-Staging-Api-Key: Settings/Naming.ts).
 */
const named = (name: string, answer: Answer): Answer => {
  const result = answer as CallToolResult
  if (result.isError !== true || !Array.isArray(result.content)) return answer
  const structured = result.structuredContent as Record<string, unknown> | undefined
  const error = structured?.error
  return {
    ...result,
    ...(structured !== undefined && isObject(error)
      ? {
          structuredContent: {
            ...structured,
            error: {
              ...error,
              service: name,
            },
          },
        }
      : {}),
    content: result.content.map((part, at) =>
      at === 0 && part.type === "text" ? { ...part, text: `${name}: ${part.text}` } : part,
    ),
  }
}

/** The name a client gave, as shown: quoted, and cut, as it is the client's and may be of any length. */
const shownName = (given: unknown) => {
  const text = JSON.stringify(given) ?? String(given)
  return text.length > 66 ? `${text.slice(0, 63)}...` : text
}

/** A refusal's answer, with the configured services named in its structured error too. */
const refusal = (denied: ToolDeniedError, names: ReadonlyArray<string>): Answer => {
  const rendered = failure(denied)
  return {
    content: [{ type: "text", text: rendered.text }],
    isError: true,
    ...(rendered.structured === undefined
      ? {}
      : { structuredContent: { error: { ...rendered.structured.error, services: names } } }),
  }
}

/** Runs `self` as a call to service `name`: with the caller its request brought for that service, if any. */
const forService = (name: string) => CallContext.locallyWith((context) => ({ ...context, service: Option.some(name) }))

/**
 * The secrets of every service (each with the caller the request brought for
 * it), kept out of a record that is no one service's. Such a record names the
 * first of the request's callers (CallContext.namedCallerOf).
 */
const everySecret = (services: ReadonlyArray<Service>): AuthShape["secrets"] =>
  Effect.map(
    Effect.forEach(services, (service) => forService(service.name)(authOf(service).secrets)),
    (each) => each.flat(),
  )

/**
 * A call naming a service that is not configured (a client that ignores the
 * schema's enum): refused before anything is sent, and recorded as any
 * refused call is. The name is the client's, so it names no audit line's
 * service nor any metric's: it is said in the reason alone.
 */
const unknownService =
  (record: CallRecord.CallRecorder, byName: ReadonlyMap<string, Tool>, names: ReadonlyArray<string>) =>
  (incoming: Incoming, given: unknown) => {
    const args = incoming.args
    const tool = byName.get(incoming.name)
    const asked = tool !== undefined && isObject(args) ? args[tool.selectorKey] : undefined
    // Only a selector the tool has is named, as the policy names one: it labels spans and metrics.
    const selector =
      typeof asked === "string" && tool !== undefined && Object.hasOwn(tool.endpoints, asked) ? asked : undefined
    const denied = new ToolDeniedError({
      tool: incoming.name,
      ...(selector === undefined || tool === undefined ? {} : { selector, endpoint: pathOf(tool, selector) }),
      reason: `the service ${shownName(given)} is not one of the configured services (${names.join(", ")})`,
    })
    return record.refused(denied, args).pipe(
      Effect.as(refusal(denied, names)),
      Effect.catchTag("AuditError", (error) =>
        Effect.succeed<Answer>({ content: [{ type: "text", text: unrecorded(error).text }], isError: true }),
      ),
      CallContext.within(incoming.request),
    )
  }

/** Each service's context brings its own client and policy; the call's record (audit, telemetry) and the state key are shared. */
export const make: Effect.Effect<RouterShape, never, ConfirmationState | Guard | SecretPages> = Effect.gen(
  function* () {
    const services = yield* Services
    const names = services.map((s) => s.name)
    // SVC_REACH is the server's, one for every service.
    const all = yield* toolsOf(settingsOf(services[0] as Service).reach)
    const byName = new Map(all.map((tool) => [tool.name, tool]))
    const handlers = new Map<string, { readonly service: Service; readonly handle: Handler }>()
    for (const service of services) {
      const handle = yield* Effect.provide(ToolCall.make, service.context)
      handlers.set(service.name, { service, handle })
    }
    const first = handlers.get(names[0] as string) as { readonly service: Service; readonly handle: Handler }
    // A refusal that is no one service's is recorded with the first service's record, scrubbed of every service's secrets.
    const record = yield* CallRecord.make.pipe(
      Effect.provideService(Auth, { ...authOf(first.service), secrets: everySecret(services) }),
      Effect.provideService(Policy, policyOf(first.service)),
    )

    const unknown = unknownService(record, byName, names)

    const handle: Handler = (incoming) => {
      const args = incoming.args
      const given = isObject(args) ? args.service : undefined
      const chosen =
        given === undefined || given === null ? first : typeof given === "string" ? handlers.get(given) : undefined
      // A tool the server does not have is refused as ever (a protocol error), whatever the service.
      if (chosen === undefined && !byName.has(incoming.name)) return first.handle(incoming)
      if (chosen === undefined) return unknown(incoming, given)
      const { service: _, ...rest } = isObject(args) ? args : { service: undefined }
      const name = chosen.service.name
      // The call runs as this service's: with its request's caller for this service alone.
      const request = { ...incoming.request, service: Option.some(name) }
      return chosen.handle({ ...incoming, args: isObject(args) ? rest : args, request }).pipe(
        Effect.map((answer) => named(name, answer)),
        Effect.provide(chosen.service.context),
        Effect.annotateLogs("service", name),
        Effect.annotateSpans("svc.service", name),
        Effect.tagMetrics("service", name),
      )
    }
    return { tools: publish(services, all), handle }
  },
)
