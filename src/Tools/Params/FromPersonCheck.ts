/**
 * What may be named in `from_person` (FromPerson.ts): a param the service's definitions take as a
 * secret (Bounds/SecretParams.ts), named once, and not given in `params` too. Loaded with the first
 * call that names one: a start loads none of it.
 */
import { isObject } from "../../Shared/JsonShape.js"
import { isSecretParam } from "../Bounds/SecretParams.js"
import { PLACEHOLDER } from "./FromPerson.js"

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
