/**
 * Tool calls among several services: the tools are published once, each with
 * an optional `service` (the first by default), and each call runs as a call
 * to that one service alone: its policy, its client, its credentials. The
 * service names the call's audit line, spans, metrics, log lines and errors.
 */
import type { CallToolResult } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import type * as ConfirmationState from "../Confirmation/State.js"
import type { Audit } from "../Operations/Audit.js"
import * as ServiceName from "../Operations/ServiceName.js"
import type { Telemetry } from "../Operations/Telemetry.js"
import * as ServiceCallers from "../Service/ServiceCallers.js"
import { policyOf, type Service, Services, settingsOf } from "../Services/Registry.js"
import { isObject } from "../Shared/JsonShape.js"
import * as Definitions from "../Tools/Definitions.js"
import { make as makeTool, type Tool } from "../Tools/Tool.js"
import type { Answer, Handler, Incoming } from "./ToolCall.js"
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

/** The union of the services' published tools, in the tools' fixed order. */
export const publish = (services: ReadonlyArray<Service>): ReadonlyArray<Tool> => {
  const names = services.map((s) => s.name)
  return Definitions.all.flatMap((tool) => {
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

/** An error names the service it came from: its text ("prod: svc_list ... failed ...") and its structured `error.service`. */
const named = (name: string, answer: Answer): Answer => {
  const result = answer as CallToolResult
  if (result.isError !== true || !Array.isArray(result.content)) return answer
  const structured = result.structuredContent as Record<string, unknown> | undefined
  const error = structured?.error
  return {
    ...result,
    ...(structured !== undefined && isObject(error)
      ? { structuredContent: { ...structured, error: { ...error, service: name } } }
      : {}),
    content: result.content.map((part, at) =>
      at === 0 && part.type === "text"
        ? { ...part, text: `${name}: ${ServiceCallers.renameIn(name, part.text)}` }
        : part,
    ),
  }
}

const refused = (given: unknown, names: ReadonlyArray<string>): Answer => ({
  content: [
    {
      type: "text",
      text: `service ${JSON.stringify(given)} is not one of the configured services: ${names.join(", ")}. Nothing was sent.`,
    },
  ],
  isError: true,
})

/** Each service's context brings its own client and policy; the call's record (audit, telemetry) and the state key are shared. */
export const make: Effect.Effect<
  RouterShape,
  never,
  Services | Audit | Telemetry | ConfirmationState.ConfirmationState
> = Effect.gen(function* () {
  const services = yield* Services
  const names = services.map((s) => s.name)
  const handlers = new Map<string, { readonly service: Service; readonly handle: Handler }>()
  for (const service of services) {
    const handle = yield* Effect.provide(ToolCall.make, service.context)
    handlers.set(service.name, { service, handle })
  }
  const first = handlers.get(names[0] as string) as { readonly service: Service; readonly handle: Handler }
  const handle: Handler = (incoming) => {
    const args = incoming.args
    const given = isObject(args) ? args.service : undefined
    const chosen =
      given === undefined || given === null ? first : typeof given === "string" ? handlers.get(given) : undefined
    if (chosen === undefined) return Effect.succeed(refused(given, names))
    const { service: _, ...rest } = isObject(args) ? args : { service: undefined }
    const name = chosen.service.name
    // The request's callers are set by `within`; inside it, the call runs as this service's alone.
    const within: Incoming["within"] = (self) => incoming.within(ServiceCallers.forService(name)(self))
    return chosen.handle({ ...incoming, args: isObject(args) ? rest : args, within }).pipe(
      Effect.map((answer) => named(name, answer)),
      Effect.provide(chosen.service.context),
      ServiceName.as(name),
      Effect.annotateLogs("service", name),
      Effect.annotateSpans("svc.service", name),
      Effect.tagMetrics("service", name),
    )
  }
  return { tools: publish(services), handle }
})
