/**
 * `from_person`: the secret params of a call that the person types on a page of svc-mcp's, out of
 * the model's sight (Mcp/Calls/TakeIn.ts). Only a param the service's definitions take as a secret
 * (Bounds/SecretParams.ts: a variable's value, an account's token...) may be named, and none that
 * `params` gives too. Until the person gives them, the call carries `PLACEHOLDER` in their place:
 * the policy, the question and the audit read that, never a value.
 */
import { isObject } from "../../Shared/JsonShape.js"
import { isSecretParam } from "../Bounds/SecretParams.js"

/** What the call's params hold for a param the person gives, until they give it. */
export const PLACEHOLDER = "[from the person]"

type Params = Readonly<Record<string, unknown>>

/** The object a path's last key is in (the params themselves for a key of one part), and that key. */
const split = (
  params: Params,
  path: string,
): { readonly record: Params; readonly key: string; readonly top: boolean } => {
  const [first = "", key] = path.split(".")
  if (key === undefined) return { record: params, key: first, top: true }
  const inner = params[first]
  return { record: isObject(inner) ? inner : {}, key, top: false }
}

/** What is wrong with `names` for `endpoint` with `params`, each in a line; none when they may be taken in. */
export const problems = (endpoint: string, params: Params, names: ReadonlyArray<string>): ReadonlyArray<string> =>
  names.flatMap((path, index) => {
    const { record, key, top } = split(params, path)
    if (names.indexOf(path) !== index) return [`from_person: "${path}" is named twice`]
    if (Object.hasOwn(record, key)) return [`from_person: "${path}" is given in params too; name it in one place`]
    const inner = path.includes(".") ? params[path.split(".")[0] ?? ""] : undefined
    if (inner !== undefined && !isObject(inner))
      return [`from_person: "${path}": params.${path.split(".")[0]} is no object`]
    // What the value would be a secret of: the params as they would be sent, the value in place.
    return isSecretParam(endpoint, { ...record, [key]: PLACEHOLDER }, key, top)
      ? []
      : [
          `from_person: "${path}" is not a secret param of ${endpoint}; only secrets (a secret variable's value, an account's token...) are given by the person`,
        ]
  })

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
