/**
 * What `schema: true` says of a selector's answer: its type, from the
 * service's definitions (through the params check, which has them loaded),
 * so that an assistant can choose the `fields` to keep before it calls.
 */

import type { Tool } from "../Catalog/Tool.js"
import type * as ParamsCheck from "./ParamsCheck.js"

type Described = ParamsCheck.Described | undefined

/**
 * The answer's part of the schema answer, for a tool that takes `fields`: the
 * answer's type, and how to name its paths. Other tools leave it out: an
 * execution's answer alone (an Update, with every operation's name) is longer
 * than all its params.
 */
export const of = (tool: Tool, described: Described): Readonly<Record<string, string>> =>
  tool.group === "execute"
    ? {
        fields:
          '["*"]: the whole Update, in place of the result at a glance; or its paths to keep, e.g. ["status", "logs.stdout"]',
      }
    : tool.fields === true
      ? {
          answer:
            described === undefined
              ? "unknown: the service's definitions are not installed"
              : (described.answer ?? "not in the service's published definitions"),
          fields:
            'dotted paths of the answer to keep, of each item for a list, e.g. ["name", "info.state"]; arrays on the way are kept item by item; ["*"] keeps the whole answer',
        }
      : {}
