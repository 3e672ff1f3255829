/**
 * What a deploy will change, for its question: what runs now and what the deploy puts in its
 * place, read just before asking. A stack's deploy: the commit deployed and the repository's
 * latest (or, for a stack whose compose file is kept in the service, the file's hash as deployed
 * and as it is now); a deployment's: the image its container runs and the image its config names.
 * A record that cannot be read is said so, and the question is asked all the same.
 */
import * as Effect from "effect/Effect"
import * as Kinds from "../Kinds/Kinds.js"
import { oneLine, quote } from "../Shared/Quote.js"
import { SvcClient, type SvcClientShape } from "../SvcClient.js"
import type { Plan, Preview } from "./PlanShape.js"

/** What a deploy deploys, and the param naming it. */
type Deployed = "stack" | "deployment"

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/** A commit with its message, each quoted: `"3f2c9e1" ("Pin redis")`. */
const commit = (hash: string, message: unknown) =>
  `${quote(hash)}${text(message) === undefined ? "" : ` (${quote(String(message))})`}`

/** The first 12 hex digits of a file's sha256: enough to tell two versions apart on one line. */
// Loaded when a deploy is asked: tools/list loads this module, and no node:crypto (StartModules.e2e).
const hashOf = (contents: string) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(contents).digest("hex").slice(0, 12)

/** A compose file kept in the service: its hash as deployed and as the deploy would run it. */
const composeLines = (config: unknown, info: unknown): ReadonlyArray<string> => {
  const now = text(field(config, "file_contents")) ?? ""
  const deployed = field(info, "deployed_contents")
  const was = Array.isArray(deployed) ? deployed.map((f) => String(field(f, "contents") ?? "")).join("\n") : undefined
  if (was === undefined || was === "") return [`The compose file now has the hash ${hashOf(now)}; none was deployed.`]
  return [
    hashOf(was) === hashOf(now)
      ? `The compose file is the one deployed (hash ${hashOf(now)}): nothing in it changes.`
      : `The compose file changes: deployed with the hash ${hashOf(was)}, now ${hashOf(now)}.`,
  ]
}

const stackLines = (record: unknown, body: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const config = field(record, "config")
  const info = field(record, "info")
  const services = Array.isArray(body.services) && body.services.length > 0 ? body.services.map(String) : []
  const only = services.length === 0 ? [] : [`Only the services ${services.map((s) => quote(s)).join(", ")}.`]
  const repo = text(field(config, "repo")) ?? text(field(config, "linked_repo"))
  if (repo === undefined) return [...composeLines(config, info), ...only]
  const deployed = text(field(info, "deployed_hash"))
  const latest = text(field(info, "latest_hash"))
  const same = deployed !== undefined && deployed === latest
  const branch = quote(text(field(config, "branch")) ?? "its branch")
  // The latest commit is the service's cache of the repository: not yet refreshed, it is not known.
  const next =
    latest === undefined
      ? `the head of ${branch} (its latest commit is not known: the stack's cache was not refreshed)`
      : commit(latest, field(info, "latest_message"))
  const now = deployed === undefined ? "no commit recorded" : commit(deployed, field(info, "deployed_message"))
  return [`Deployed now: ${now}; this deploys ${quote(repo)} at ${next}${same ? ", the same commit" : ""}.`, ...only]
}

/** What a deployment's config names to run: an image, or a build's. */
const configured = (config: unknown): string => {
  const image = field(config, "image")
  const params = field(image, "params")
  if (field(image, "type") === "Build") {
    const version = field(params, "version")
    const v = typeof version === "object" && version !== null ? Object.values(version).join(".") : ""
    return `the build ${quote(String(field(params, "build_id") ?? ""))}${v === "" || v === "0.0.0" ? " (its latest version)" : ` at ${v}`}`
  }
  return quote(String(field(params, "image") ?? ""))
}

const deploymentLines = (client: SvcClientShape, name: string, record: unknown) =>
  Effect.map(Effect.either(client.call("read", "GetDeploymentContainer", { deployment: name })), (got) => {
    const next = configured(field(record, "config"))
    if (got._tag === "Left")
      return [`The image it runs now could not be read (${oneLine(got.left.message)}); this deploys ${next}.`]
    const container = field(got.right, "container")
    const image = text(field(container, "image"))
    const state = text(field(container, "state")) ?? text(field(got.right, "state"))
    const now = image === undefined ? "no container" : `${quote(image)}${state === undefined ? "" : ` (${state})`}`
    const same = image !== undefined && quote(image) === next
    return [`Runs now: ${now}; this deploys ${next}${same ? ", the same image, pulled again" : ""}.`]
  })

/** The lines of a deploy of the `kind` its body names, read now; none for a call that names none. */
const make = (
  kind: Deployed,
  body: Readonly<Record<string, unknown>>,
): Effect.Effect<ReadonlyArray<string>, never, SvcClient> => {
  const name = text(body[kind])
  if (name === undefined) return Effect.succeed([])
  return Effect.gen(function* () {
    const client = yield* SvcClient
    const get = Kinds.KINDS[kind].get
    const record = yield* client.call("read", get.endpoint, { [get.key]: name })
    return kind === "stack" ? stackLines(record, body) : yield* deploymentLines(client, name, record)
  }).pipe(
    Effect.catchAll((error) => Effect.succeed([`What it changes could not be read (${oneLine(error.message)}).`])),
  )
}

/** How many of a batch's matches its question says the change of; the rest are counted. */
const BATCHED = 10

/** For a batch deploy of `kind`, what each of its first matches changes, one a line under its name. */
const batch = (kind: Deployed, plan: Plan | undefined): Effect.Effect<ReadonlyArray<string>, never, SvcClient> => {
  if (plan?._tag !== "Batch" || plan.matches._tag === "Left") return Effect.succeed([])
  const names = plan.matches.right
  return Effect.forEach(
    names.slice(0, BATCHED),
    (name) => Effect.map(make(kind, { [kind]: name }), (lines) => lines.map((line) => `  ${quote(name)}: ${line}`)),
    { concurrency: 4 },
  ).pipe(
    Effect.map((each) => [
      "What each deploy changes:",
      ...each.flat(),
      ...(names.length + plan.more > BATCHED ? [`  … and ${names.length + plan.more - BATCHED} more, not read`] : []),
    ]),
  )
}

/** A deploy of a stack, or of a deployment: what runs now, and what it puts in its place. */
export const STACK_DEPLOY: Preview = { lines: ({ invocation }) => make("stack", invocation.body) }
export const DEPLOYMENT_DEPLOY: Preview = { lines: ({ invocation }) => make("deployment", invocation.body) }

/** After a batch deploy's plan (Plan.ts), what each of its first matches' deploy changes. */
export const EACH_STACK: NonNullable<Preview["lines"]> = (_, plan) => batch("stack", plan)
export const EACH_DEPLOYMENT: NonNullable<Preview["lines"]> = (_, plan) => batch("deployment", plan)
