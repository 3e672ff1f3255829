/**
 * `from_person`: the secret params of a call that the person types on a page of svc-mcp's, out of
 * the model's sight (Mcp/Calls/TakeIn.ts). Only a param the service's definitions take as a secret
 * (Bounds/SecretParams.ts: a variable's value, an account's token...) may be named, and none that
 * `params` gives too (FromPersonCheck.ts, loaded with the first such call). Until the person gives them, the call carries `PLACEHOLDER` in their place:
 * the policy, the question and the audit read that, never a value.
 */
import { isObject } from "../../Shared/JsonShape.js"

/** What the call's params hold for a param the person gives, until they give it. */
export const PLACEHOLDER = "[from the person]"

type Params = Readonly<Record<string, unknown>>

/** `params` with `values` (by path) in place: `PLACEHOLDER` until the person gives them. */
export const filled = (params: Params, values: Readonly<Record<string, string>>): Params => {
  let out: Record<string, unknown> = { ...params }
  for (const [path, value] of Object.entries(values)) {
    const [first = "", key] = path.split(".")
    if (key === undefined) out = { ...out, [first]: value }
    else {
      const inner = out[first]
      out = { ...out, [first]: { ...(isObject(inner) ? inner : {}), [key]: value } }
    }
  }
  return out
}

/** The placeholders of `names`, by path. */
export const placeholders = (names: ReadonlyArray<string>): Readonly<Record<string, string>> =>
  Object.fromEntries(names.map((name) => [name, PLACEHOLDER]))
