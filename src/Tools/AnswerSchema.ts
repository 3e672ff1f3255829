/**
 * What `schema: true` says of a selector's answer: its type, from the
 * service's definitions (through the params check, which has them loaded),
 * so that an assistant can choose the `fields` to keep before it calls.
 */
import type { ParamsCheckShape } from "./ParamsCheck.js"
import type { Tool } from "./Tool.js"

type Described = ReturnType<ParamsCheckShape["describe"]>

/** The answer's part of the schema answer: `answer`, and how to use `fields` where the tool takes it. */
export const of = (tool: Tool, described: Described): Readonly<Record<string, string>> => ({
  answer:
    described === undefined
      ? "unknown: the service's definitions are not installed"
      : (described.answer ?? "not in the service's published definitions"),
  ...(tool.fields === true
    ? {
        fields:
          'dotted paths of the answer to keep, of each item for a list, e.g. ["name", "info.state"]; arrays on the way are kept item by item',
      }
    : {}),
})
