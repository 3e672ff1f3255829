/**
 * A resource named under the key another tool uses for it: `{deployment: "api"}` to an endpoint
 * that takes `{id}` (UpdateDeployment), or `{id: "api"}` to one that takes `{deployment}` (Deploy).
 * Which key is read as which, per endpoint, is derived from the service's definitions:
 *
 * - a type's own key is the one its Get* names it by (`stack` for GetStack); an endpoint of that
 *   type (svc_get, svc_update, svc_delete, svc_rename, svc_copy) that takes `id` and not the type's
 *   key reads the type's key as `id`;
 * - an endpoint that takes no `id` and exactly one required string, a type's own key, reads `id`
 *   as that key.
 *
 * Never where the endpoint also has the key given (it means itself there), nor where two keys
 * could be meant (two required strings: `{server, container}`); and only when the body as given is
 * refused and the body read so is accepted (ParamsValidation.ts), which its first line says.
 */
import * as Tables from "../Catalog/Tables.js"
import { aliasesOf, definitionName, type Json, type Node } from "./ParamsDefinitions.js"

/** `from` in a call's params is read as `to`. */
export interface Alias {
  readonly from: string
  readonly to: string
}

/** The tables whose selector is the resource's type, with the group of their endpoints. */
const TYPED: ReadonlyArray<readonly [string, Readonly<Record<string, string>>]> = [
  ["read", Tables.get],
  ["write", Tables.update],
  ["write", Tables.delete_],
  ["write", Tables.rename],
  ["write", Tables.copy],
]

/** `group/Endpoint` -> the type it is of, for the tables whose selector is a type. */
const typeOfEndpoint: ReadonlyMap<string, string> = new Map(
  TYPED.flatMap(([group, table]) => Object.entries(table).map(([type, endpoint]) => [`${group}/${endpoint}`, type])),
)

/** Keys too general to be read as another: a new name, or an id of anything. */
const GENERAL = new Set(["id", "name"])

/** What the aliases are read from: the definitions by name, and each endpoint's request. */
export interface Source {
  readonly definitions: Readonly<Record<string, Node>>
  readonly requestOf: (endpoint: string) => string | undefined
}

const resolve = (definitions: Source["definitions"], node: Node | undefined): Node | undefined => {
  let current = node
  for (let hops = 0; current?.$ref !== undefined && hops < 20; hops++) {
    current = definitions[definitionName(current.$ref)]
  }
  return current
}

const requestNode = (source: Source, endpoint: string): Node | undefined => {
  const request = source.requestOf(endpoint)
  return request === undefined ? undefined : resolve(source.definitions, source.definitions[request])
}

/** The key a request names its resource by: the first of its aliases (`stack|id|name`), or its one required key. */
const namingKey = (node: Node | undefined): string | undefined => {
  if (node === undefined) return undefined
  const aliases = aliasesOf(node)
  if (aliases !== undefined) return aliases[0]
  return node.required?.length === 1 ? node.required[0] : undefined
}

/** The required keys whose value is a string (an enum of strings among them). */
const requiredStrings = (definitions: Source["definitions"], node: Node): ReadonlyArray<string> =>
  (node.required ?? []).filter((key) => {
    const field = resolve(definitions, node.properties?.[key])
    return field?.type === "string" || (field?.enum?.every((v) => typeof v === "string") ?? false)
  })

/** Each type's own key, as its Get* names it (`stack`, `sync`, `user_group`). */
export const ownKeys = (source: Source): Readonly<Record<string, string>> =>
  Object.fromEntries(
    Object.entries(Tables.get).flatMap(([type, endpoint]) => {
      const key = namingKey(requestNode(source, `read/${endpoint}`))
      return key === undefined ? [] : [[type, key]]
    }),
  )

/** The aliases of `endpoint` (`group/Endpoint`): none, or one. */
export const aliasesFor = (
  source: Source,
  endpoint: string,
  own: Readonly<Record<string, string>>,
): ReadonlyArray<Alias> => {
  const node = requestNode(source, endpoint)
  const properties = node?.properties
  if (node === undefined || properties === undefined) return []
  const type = typeOfEndpoint.get(endpoint)
  const key = type === undefined ? undefined : own[type]
  if (key !== undefined && !GENERAL.has(key) && !Object.hasOwn(properties, key) && node.required?.includes("id")) {
    return [{ from: key, to: "id" }]
  }
  if (Object.hasOwn(properties, "id")) return []
  const strings = requiredStrings(source.definitions, node)
  const [only] = strings
  const named = new Set(Object.values(own))
  return strings.length === 1 && only !== undefined && !GENERAL.has(only) && named.has(only)
    ? [{ from: "id", to: only }]
    : []
}

/** `body` with each alias read, where it names `from` and not `to`; undefined where none applies. */
export const read = (
  aliases: ReadonlyArray<Alias>,
  body: Json,
): { readonly body: Json; readonly said: ReadonlyArray<string> } | undefined => {
  const applied = aliases.filter(({ from, to }) => Object.hasOwn(body, from) && !Object.hasOwn(body, to))
  if (applied.length === 0) return undefined
  const renamed = new Map(applied.map(({ from, to }) => [from, to]))
  return {
    // fromEntries: a key named "__proto__" stays a key.
    body: Object.fromEntries(Object.entries(body).map(([k, v]) => [renamed.get(k) ?? k, v])),
    said: applied.map(({ from, to }) => `params.${from} as params.${to}`),
  }
}
