/**
 * The sandbox's `execute/` endpoints: each answers at once with an Update that
 * is already InProgress (success: true, as the service's), goes Complete a
 * moment later, and on completion changes what later reads report (a stopped
 * stack lists as stopped, a deploy writes logs).
 */

import * as NamePattern from "../../Shared/NamePattern.js"
import type { Pool } from "../../Shared/PatternReader.js"
import { composeRun, record } from "../Docker/Compose.js"
import { PRUNES } from "../Docker/Prune.js"
import { DEPLOYMENT_STATES, deployed, lifecycle, STACK_STATES } from "../Docker/Workloads.js"
import type { Handler } from "../Resources/Resources.js"
import * as Sync from "../Sync/SyncPending.js"
import { removed, setContainer, snapshotOf } from "../World/Lifecycle.js"
import { may, requireLevel } from "../World/Permissions.js"
import { type Kind, kinds } from "../World/ResourceTypes.js"
import { adminOnly, type Caller, type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { Container, UpdateRecord, World } from "../World/World.js"
import { unreachable } from "./Agents.js"
import { buildSteps } from "./Builds.js"

export interface Timing {
  /** From the call to Complete. */
  readonly completeMs: number
}

const DEFAULT_TIMING: Timing = { completeMs: 1000 }

type Target = { readonly kind: Kind; readonly resource: Resource } | undefined
/**
 * What an execution does: the lines of one last stage, named for the operation; or undefined when
 * it logged its stages in `update` itself.
 */
type Effect = (world: World, target: Target, params: Params, update: UpdateRecord) => ReadonlyArray<string> | undefined

const containerStates: Record<string, Container["state"]> = {
  StartContainer: "running",
  RestartContainer: "running",
  UnpauseContainer: "running",
  StopContainer: "exited",
  PauseContainer: "paused",
}

const bumpBuild: Effect = (world, target, _params, update) => {
  if (target === undefined) return []
  const r = target.resource
  const version = (r.config.version ?? { major: 0, minor: 0, patch: 0 }) as {
    major: number
    minor: number
    patch: number
  }
  buildSteps(world, r, update, `${version.major}.${version.minor}.${version.patch + 1}`)
  r.config = { ...r.config, version: { ...version, patch: version.patch + 1 } }
  r.info = { ...r.info, state: "Ok", last_built_at: world.now() }
  return undefined
}

const touch =
  (field: string, message: string): Effect =>
  (world, target) => {
    if (target === undefined) return [message]
    target.resource.info = { ...target.resource.info, state: "Ok", [field]: world.now() }
    return [`${target.resource.name}: ${message}`]
  }

const noted =
  (message: string): Effect =>
  () => [message]

/** What each operation acts on (the kind whose name its params give) and what it does. */
const operations = new Map<string, { kind?: Kind; key?: string; effect: Effect }>()
for (const [kind, states] of [
  ["stack", STACK_STATES],
  ["deployment", DEPLOYMENT_STATES],
] as const) {
  for (const [op, state] of Object.entries(states)) {
    const run = lifecycle(op, kind, state)
    operations.set(op, {
      kind,
      effect: (world, target, params, update) =>
        target === undefined ? [] : run(world, target.resource, params, update),
    })
  }
}
for (const op of Object.keys(containerStates)) {
  operations.set(op, {
    kind: "server",
    effect: (world, target, params) => {
      if (target === undefined) return []
      const { container } = world.container(target.resource.id, ref(params, "container"))
      setContainer(world, container, containerStates[op] ?? "running", op === "RestartContainer")
      return [`container ${container.name}: ${container.state}`]
    },
  })
}
operations.set("DestroyContainer", {
  kind: "server",
  effect: (world, target, params) => {
    if (target === undefined) return []
    const { server, container } = world.container(target.resource.id, ref(params, "container"))
    const all = world.containersOn(server)
    all.splice(all.indexOf(container), 1)
    removed(world, [container])
    return [`removed container ${container.name}`]
  },
})
for (const [op, state] of [
  ["StartAllContainers", "running"],
  ["RestartAllContainers", "running"],
  ["UnpauseAllContainers", "running"],
  ["StopAllContainers", "exited"],
  ["PauseAllContainers", "paused"],
] as const) {
  operations.set(op, {
    kind: "server",
    effect: (world, target) => {
      if (target === undefined) return []
      for (const c of world.containersOn(target.resource)) setContainer(world, c, state, op === "RestartAllContainers")
      return [`all containers on ${target.resource.name}: ${state}`]
    },
  })
}
operations.set("RunStackService", {
  kind: "stack",
  effect: (world, target, params, update) => {
    if (target === undefined) return []
    record(world, update, [composeRun(target.resource, ref(params, "service"), params.command)])
    return undefined
  },
})
operations.set("RunBuild", { kind: "build", effect: bumpBuild })
operations.set("CancelBuild", { kind: "build", effect: noted("no build in progress") })
operations.set("CloneRepo", { kind: "repo", effect: touch("last_pulled_at", "cloned") })
operations.set("PullRepo", { kind: "repo", effect: touch("last_pulled_at", "pulled") })
operations.set("BuildRepo", { kind: "repo", effect: touch("last_built_at", "built") })
operations.set("CancelRepoBuild", { kind: "repo", effect: noted("no repo build in progress") })
operations.set("ClearRepoCache", { effect: noted("cleared the repo cache") })
operations.set("RunProcedure", { kind: "procedure", effect: touch("last_run_at", "all stages finished") })
operations.set("CancelProcedure", { kind: "procedure", effect: noted("no run in progress") })
operations.set("RunAction", { kind: "action", effect: touch("last_run_at", "finished") })
operations.set("CancelAction", { kind: "action", effect: noted("no run in progress") })
operations.set("RunSync", {
  kind: "sync_resource",
  effect: (world, target, params, update) =>
    target === undefined
      ? ["in sync, nothing to change"]
      : Sync.run(world, target.resource, params, update, (kind, r) =>
          kind === "stack" || kind === "deployment" ? deployed(world, kind, r) : [],
        ),
})
operations.set("TestAlerter", { kind: "alerter", effect: noted("test alert sent") })
for (const op of [
  "RunServerRefreshContainers",
  "RunServerRunCommand",
  "RunServerScripts",
  "RunServerCopy",
  "RunServerMove",
  "PruneBuildx",
  "PruneDockerBuilders",
  "DeleteImage",
  "DeleteNetwork",
  "DeleteVolume",
]) {
  operations.set(op, { kind: "server", effect: noted(`${op}: done`) })
}
for (const [op, prune] of Object.entries(PRUNES)) {
  operations.set(op, {
    kind: "server",
    effect: (world, target) => (target === undefined ? [] : prune(world, target.resource)),
  })
}
for (const op of [
  "RemoveSwarmNodes",
  "RemoveSwarmServices",
  "RemoveSwarmConfigs",
  "RemoveSwarmSecrets",
  "RemoveSwarmStacks",
  "CreateSwarmConfig",
  "CreateSwarmSecret",
  "RotateSwarmConfig",
  "RotateSwarmSecret",
  "UpdateSwarmNode",
]) {
  operations.set(op, { kind: "swarm", effect: noted(`${op}: done`) })
}
for (const op of ["RotateAllServerKeys", "BackupCoreDatabase", "RotateCoreKeys", "GlobalAutoUpdate", "SendAlert"]) {
  operations.set(op, { effect: noted(`${op}: done`) })
}

/**
 * The resources of `all` whose names `pattern` matches, as the service reads it
 * (Shared/NamePattern.ts): a regex its engine refuses fails the whole call, as the service's does,
 * before anything runs; so does a pattern past the limits of what reading it may cost here. Read
 * in the sandbox's own pattern reader (`reader`), ended as the sandbox closes.
 */
const matching = async (
  reader: Pool,
  pattern: string,
  all: ReadonlyArray<Resource>,
): Promise<ReadonlyArray<Resource>> => {
  const selected = await NamePattern.selectWith(
    reader,
    pattern,
    all.map((r) => r.name),
  )
  if (selected._tag === "Refused") {
    throw selected.cause === "Engine"
      ? new ServiceFailure(500, `failed to build regex from ${selected.entry}`, [selected.reason])
      : new ServiceFailure(500, `failed to read the pattern: ${selected.reason}`)
  }
  return selected.matched.flatMap((i) => all[i] ?? [])
}

/** Whether `r` carries every tag in `tags` (each a tag's name or id). */
const tagged = (world: World, tags: unknown) => (r: Resource) =>
  !Array.isArray(tags) ||
  tags.every((t) => {
    const tag = world.store.all("tag").find((x) => x.id === t || x.name === t)
    return tag !== undefined && r.tags.includes(tag.id)
  })

/** The executions that also come in a batch, `Batch<name>` with a `pattern`. */
const BATCHED = [
  "RunBuild",
  "DeployStack",
  "DeployStackIfChanged",
  "Deploy",
  "PullStack",
  "PullRepo",
  "BuildRepo",
  "CloneRepo",
  "RunProcedure",
  "RunAction",
  "DestroyDeployment",
  "DestroyStack",
]

/** Whether a stack would change if deployed: not running, or its config changed since its last deploy. */
const changed = (stack: Resource) =>
  stack.info.state !== "running" || stack.info.deployed_snapshot !== snapshotOf(stack)

/**
 * The stage an execution that could not run is logged under: a deploy's own, else the service's
 * `Task Error` for what failed before any stage of its own ran (an agent that does not answer).
 */
const failedStage = (operation: string) => (operation === "Deploy" ? "Deploy Container" : "Task Error")

/** An operation started as the service starts it: checked now, its Update answered at once and finished later. */
const start = (world: World, timing: Timing, operation: string, params: Params, caller: Caller): UpdateRecord => {
  const spec = operations.get(operation)
  if (spec === undefined) throw new ServiceFailure(500, `unknown variant \`${operation}\``)
  const resource =
    spec.kind === undefined
      ? undefined
      : world.store.find(spec.kind, ref(params, spec.key ?? kinds[spec.kind].key, "id"))
  const target: Target = spec.kind === undefined || resource === undefined ? undefined : { kind: spec.kind, resource }
  if (target === undefined) adminOnly(caller)
  else requireLevel(world, caller, target.kind, target.resource, "Execute")
  // Checked now, as the service does, so a bad container name fails the call itself.
  if (target !== undefined && operation.endsWith("Container") && operation !== "RunServerRefreshContainers") {
    world.container(target.resource.id, ref(params, "container"))
  }
  const updateTarget = {
    type: target === undefined ? "System" : kinds[target.kind].target,
    id: target?.resource.id ?? "",
  }
  const command = `${operation} ${target?.resource.name ?? ""}`.trim()
  if (operation === "DeployStackIfChanged" && target !== undefined && !changed(target.resource)) {
    // Nothing to deploy: the service answers a finished Update it never stores, without an id.
    const update = world.newUpdate("DeployStack", updateTarget, caller.id, false)
    world.finish(update, "Diff compose files", "", ["Deploy cancelled after no changes detected."], true)
    return update
  }
  const services = Array.isArray(params.services) && params.services.length > 0
  const recorded =
    operation === "DeployStackIfChanged"
      ? "DeployStack"
      : operation === "DeployStack" && services
        ? "DeployStackService"
        : operation
  const update = world.newUpdate(recorded, updateTarget, caller.id)
  setTimeout(() => {
    let lines: ReadonlyArray<string> | undefined
    let success = true
    const unreached = target === undefined ? undefined : unreachable(world, target.kind, target.resource)
    try {
      if (unreached !== undefined) throw new Error(unreached.join("\n"))
      lines = spec.effect(world, target, params, update)
    } catch (error) {
      lines = [error instanceof Error ? error.message : String(error)]
      success = false
    }
    if (lines === undefined) world.complete(update)
    else if (success) world.finish(update, operation, command, lines, true)
    else world.finish(update, failedStage(operation), "", lines, false)
  }, timing.completeMs).unref()
  return update
}

/** What a batch runs: the resources whose names `pattern` matches, with every one of `tags`, that the caller may execute. */
export const selected = async (
  world: World,
  reader: Pool,
  kind: Kind,
  params: Params,
  caller: Caller,
): Promise<ReadonlyArray<Resource>> => {
  const matches = await matching(reader, ref(params, "pattern"), world.store.all(kind))
  return matches.filter(tagged(world, params.tags)).filter((r) => may(world, caller, kind, r, "Execute"))
}

export const handlers = (world: World, reader: Pool, timing: Timing = DEFAULT_TIMING): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  for (const operation of operations.keys()) {
    routes.set(`execute/${operation}`, (params, caller) => start(world, timing, operation, params, caller))
  }
  for (const single of BATCHED) {
    const kind = operations.get(single)?.kind as Kind
    routes.set(`execute/Batch${single}`, async (params, caller) => {
      // Of the matches, the service runs those the caller may execute; the others are left out, not refused.
      const matches = await selected(world, reader, kind, params, caller)
      return matches.map((r) => {
        try {
          return { status: "Ok", data: start(world, timing, single, { [kinds[kind].key]: r.id }, caller) }
        } catch (error) {
          const failure = error instanceof ServiceFailure ? error : new ServiceFailure(500, String(error))
          return { status: "Err", data: { name: r.name, error: { error: failure.error, trace: failure.trace } } }
        }
      })
    })
  }
  routes.set("read/GetUpdate", (params) => world.update(ref(params, "id")))
  return routes
}
