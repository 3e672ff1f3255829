/**
 * The plans of SVC_REACH=all's changes to a resource itself: its meta (tags,
 * description, template flag) and its files (a stack's compose file, a
 * build's Dockerfile, a sync's resource file). Each reads the resource just
 * before asking, so that the question shows what is there now beside what the
 * call makes of it: tags by name, a file in lines, never its contents whole.
 */
import * as Effect from "effect/Effect"
import { KINDS, readOf } from "../Kinds/Kinds.js"
import type { FileDiff, Hunk } from "../Shared/Diff.js"
import * as Diff from "../Shared/Diff.js"
import { linesOf } from "../Shared/Diff.js"
import { word } from "../Shared/Quote.js"
import type { SvcClient } from "../SvcClient.js"
import * as TomlSecrets from "../Tools/Sync/TomlSecrets.js"
import { mask } from "../Untrusted/Mask.js"
import { field, idOf, read, strings, text } from "./PlanRead.js"
import type { FilePlan, MetaPlan, Preview } from "./PlanShape.js"

type Params = Readonly<Record<string, unknown>>

/** A ResourceTarget's record, read with the get of its type; Left: why not. */
export const readTarget = (type: string, id: string) => {
  const get = readOf(type, id)
  return get === undefined
    ? Effect.fail(`a ${type} target is no resource of the service's`)
    : read("read", get.endpoint, get.body)
}

const metaOf = (params: Params, record: unknown) =>
  Effect.gen(function* () {
    const out: {
      name: string
      tags?: { now: ReadonlyArray<string>; after: ReadonlyArray<string>; created: ReadonlyArray<string> }
      description?: { now: string; after: string }
      template?: { now: boolean; after: boolean }
    } = { name: text(field(record, "name")) ?? "" }
    if (Array.isArray(params.tags)) {
      // The service's own rule: each entry a tag's id or name; a name no tag has becomes a new tag.
      const listed = yield* read("read", "ListTags", {})
      const tags = Array.isArray(listed) ? listed : []
      const byId = new Map(
        tags.flatMap((t) => (idOf(t) === undefined ? [] : [[idOf(t) as string, text(field(t, "name")) ?? ""]])),
      )
      const names = new Set(byId.values())
      const after: Array<string> = []
      const created: Array<string> = []
      for (const entry of strings(params.tags).map((t) => t.trim())) {
        if (entry === "") continue
        const name = byId.get(entry) ?? entry
        if (!byId.has(entry) && !names.has(entry) && !created.includes(entry)) created.push(entry)
        if (!after.includes(name)) after.push(name)
      }
      out.tags = { now: strings(field(record, "tags")).map((id) => byId.get(id) ?? id), after, created }
    }
    if (typeof params.description === "string")
      out.description = { now: text(field(record, "description")) ?? "", after: params.description }
    if (typeof params.template === "boolean")
      out.template = { now: field(record, "template") === true, after: params.template }
    return out
  })

const metaPlan = (params: Params): Effect.Effect<MetaPlan, never, SvcClient> =>
  Effect.gen(function* () {
    const type = text(field(params.target, "type")) ?? ""
    const target = text(field(params.target, "id")) ?? ""
    const record = yield* Effect.either(Effect.flatMap(readTarget(type, target), (found) => metaOf(params, found)))
    return { _tag: "Meta", type, target, record } satisfies MetaPlan
  })

// ---- files

/** Each selector's resource: its get and the request's key (Kinds/Kinds.ts). */
const FILES: Readonly<Record<string, { readonly endpoint: string; readonly key: string }>> = {
  stack_file: KINDS.stack.get,
  build_file: KINDS.build.get,
  sync_resource_file: KINDS.sync_resource.get,
}

/**
 * The file's contents now, from the record: "new" where the resource's files are read and none is at
 * that path, "unread" where the service holds none of its files (its cache not yet refreshed).
 */
const contentsNow = (selector: string, record: unknown, params: Params): string | "new" | "unread" => {
  const info = field(record, "info")
  const config = field(record, "config")
  if (selector === "build_file") {
    // A build's Dockerfile is in its repository (or on its host), else written in its config.
    const inRepo = text(field(config, "repo")) !== undefined || field(config, "files_on_host") === true
    const contents = inRepo ? field(info, "remote_contents") : field(config, "dockerfile")
    return typeof contents === "string" ? contents : "unread"
  }
  const files = Array.isArray(field(info, "remote_contents")) ? (field(info, "remote_contents") as Array<unknown>) : []
  if (files.length === 0) return "unread"
  const found = files.find(
    (f) =>
      field(f, "path") === params.file_path &&
      (selector !== "sync_resource_file" || field(f, "resource_path") === params.resource_path),
  )
  const contents = field(found, "contents")
  return typeof contents === "string" ? contents : "new"
}

const whereOf = (record: unknown): string | undefined => {
  const config = field(record, "config")
  if (field(config, "files_on_host") === true) return "on the host"
  const repo = text(field(config, "repo"))
  return repo === undefined ? undefined : `committed to ${word(repo)}`
}

/** A hunk's line masked: it may hold a credential the infrastructure wrote. */
const maskedHunk = (hunk: Hunk): Hunk => ({
  ...hunk,
  lines: hunk.lines.map((l) => `${l.slice(0, 1)}${mask(l.slice(1))}`),
})

/** What changes from `now` to `next` (Shared/Diff.ts), each line masked. */
const diffOf = (now: ReadonlyArray<string>, next: ReadonlyArray<string>): Effect.Effect<FileDiff | undefined> =>
  Effect.map(Diff.diffOf(now, next), (diff) =>
    diff?._tag === "Hunks" ? { _tag: "Hunks", hunks: diff.hunks.map(maskedHunk) } : diff,
  )

/** Each variable by name as the service holds it, `secret` or `plain`; undefined where it could not be asked. */
const variablesAtService: Effect.Effect<TomlSecrets.AtService, never, SvcClient> = Effect.map(
  Effect.either(read("read", "ListVariables", {})),
  (listed) =>
    listed._tag === "Left" || !Array.isArray(listed.right)
      ? undefined
      : new Map(
          listed.right.flatMap((v) => {
            const name = text(field(v, "name"))
            return name === undefined ? [] : [[name, field(v, "is_secret") === false ? "plain" : "secret"] as const]
          }),
        ),
)

/**
 * A sync's file now and after, each secret variable's value hidden in both (TomlSecrets.ts) unless
 * SVC_REVEAL_SECRETS: the file is in the repository, where anyone who writes it may have put a value.
 */
const sidesOf = (
  selector: string,
  now: string | undefined,
  after: string,
  revealSecrets: boolean,
): Effect.Effect<{ readonly now: string | undefined; readonly after: string }, never, SvcClient> =>
  selector !== "sync_resource_file" || revealSecrets
    ? Effect.succeed({ now, after })
    : Effect.map(variablesAtService, (atService) => TomlSecrets.hideFileSides(now, after, atService))

const filePlan = (selector: string, params: Params, revealSecrets = false): Effect.Effect<FilePlan, never, SvcClient> =>
  Effect.gen(function* () {
    const { endpoint: get, key } = FILES[selector] ?? { endpoint: "", key: "" }
    const target = text(params[key]) ?? text(params.id) ?? text(params.name) ?? ""
    const path =
      selector === "sync_resource_file"
        ? [text(params.resource_path), text(params.file_path)].filter((p) => p !== undefined).join("/")
        : (text(params.file_path) ?? "Dockerfile")
    const written = typeof params.contents === "string" ? params.contents : ""
    const after = linesOf(written)
    const record = yield* Effect.either(
      Effect.flatMap(read("read", get, { [key]: target }), (found) =>
        Effect.gen(function* () {
          const contents = contentsNow(selector, found, params)
          const known = contents === "new" || contents === "unread" ? undefined : contents
          const sides = yield* sidesOf(selector, known, written, revealSecrets)
          const now = sides.now === undefined ? undefined : linesOf(sides.now)
          return {
            name: text(field(found, "name")) ?? target,
            where: whereOf(found),
            now: now === undefined ? (contents as "new" | "unread") : now.length,
            // A new file's every line is a change too.
            diff: contents === "unread" ? undefined : yield* diffOf(now ?? [], linesOf(sides.after)),
          }
        }),
      ),
    )
    return {
      _tag: "File",
      kind: selector.replace(/_file$/, ""),
      target,
      path,
      lines: after.length,
      record,
    } satisfies FilePlan
  })

/** A resource's meta: its tags, description and template flag now and after. */
export const META: Preview = { plan: ({ invocation }) => metaPlan(invocation.body) }

/** A file write: the file now and after, in lines, and what changes. */
export const FILE: Preview = {
  plan: ({ invocation, revealSecrets }) => filePlan(invocation.selector, invocation.body, revealSecrets),
}
