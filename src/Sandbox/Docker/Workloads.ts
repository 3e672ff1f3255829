/**
 * The executions of a stack's or a deployment's lifecycle (deploy, pull, start,
 * stop, ...): the stages its agent runs, logged as the service logs them
 * (Compose.ts), then the state it leaves: its containers, its logs, what it
 * last deployed. A stage that fails leaves everything as it was.
 */
import * as Alerts from "../Monitoring/Alerts.js"
import {
  crashOf,
  imageOf,
  imagesOf,
  logKey,
  place,
  type Renewal,
  type RunState,
  servicesOf,
  snapshotOf,
  writeStartLogs,
} from "../World/Lifecycle.js"
import { kinds } from "../World/ResourceTypes.js"
import type { Params, Resource } from "../World/Store.js"
import type { Container, UpdateRecord, World } from "../World/World.js"
import { record, requested, type StackRun, stackStages } from "./Compose.js"
import { type DeploymentRun, deploymentStage } from "./Deployments.js"

/** What each of a stack's executions leaves it as; a pull leaves it as it was. */
export const STACK_STATES: Record<string, RunState | undefined> = {
  DeployStack: "running",
  DeployStackIfChanged: "running",
  StartStack: "running",
  RestartStack: "running",
  UnpauseStack: "running",
  StopStack: "stopped",
  PauseStack: "paused",
  DestroyStack: "down",
  PullStack: undefined,
}

/** What each of a deployment's executions leaves it as. */
export const DEPLOYMENT_STATES: Record<string, RunState | undefined> = {
  Deploy: "running",
  StartDeployment: "running",
  RestartDeployment: "running",
  UnpauseDeployment: "running",
  StopDeployment: "stopped",
  PauseDeployment: "paused",
  DestroyDeployment: "down",
  PullDeployment: undefined,
}

/** Whether an operation pulls images first: a deploy (as the stack's `auto_pull` and the agent's `docker run` do) or a pull. */
const pulls = (op: string) => op.startsWith("Deploy") || op.startsWith("Pull")

const infoState: Record<"stack" | "deployment", Record<RunState, string>> = {
  stack: { running: "running", stopped: "stopped", paused: "paused", down: "down" },
  deployment: { running: "running", stopped: "exited", paused: "paused", down: "not_deployed" },
}

/** A pull: the newer images a registry holds for `r` become the ones it runs, and their alerts resolve. */
const pull = (world: World, kind: "stack" | "deployment", r: Resource): ReadonlySet<string> => {
  const newer = new Set<string>()
  for (const { service, image } of imagesOf(r)) {
    if (!world.docker.newerImages.delete(image)) continue
    newer.add(service)
    Alerts.resolve(world, { type: kinds[kind].target, id: r.id }, `${kinds[kind].target}ImageUpdateAvailable`)
  }
  return newer
}

/** The containers of `r` on its server, each by its service. */
const ownedBy = (world: World, r: Resource): ReadonlyArray<Container> => {
  const serverId = String(r.config.server_id ?? "")
  const server = world.store.all("server").find((s) => s.id === serverId || s.name === serverId)
  return server === undefined ? [] : world.containersOn(server).filter((c) => c.owner?.id === r.id)
}

/** `r` as its execution finds it, for the stages it logs: its containers, what changed, what a pull found. */
const runOf = (world: World, operation: string, kind: "stack" | "deployment", r: Resource, params: Params) => {
  const before = ownedBy(world, r)
  const newer = pulls(operation) ? pull(world, kind, r) : new Set<string>()
  const deployed = r.info.deployed_snapshot
  const stack: StackRun = {
    operation,
    stack: r,
    members: servicesOf(r).map((service) => ({
      service,
      container: `${r.name}-${service}-1`,
      before: before.find((c) => c.owner?.service === service)?.state,
    })),
    services: requested(params),
    newer,
    changed: typeof deployed === "string" && deployed !== snapshotOf(r),
    params,
  }
  const deployment = (id: string): DeploymentRun => ({
    operation,
    deployment: r,
    image: imageOf(r),
    before: before[0]?.state,
    id,
    newer: newer.size > 0,
    params,
  })
  return { stack, deployment }
}

/** What a stack's deploy records: the files and commit it ran, as FileContents (path and contents alone). */
const deployedFrom = (info: Record<string, unknown>) => ({
  deployed_contents: (info.remote_contents as Array<Record<string, unknown>>).map((f) => ({
    path: f.path,
    contents: f.contents,
  })),
  deployed_hash: info.latest_hash ?? "",
  deployed_message: info.latest_message ?? "",
})

/** What `r`'s state becomes: where its containers run, its logs, what it last deployed. */
const settle = (
  world: World,
  kind: "stack" | "deployment",
  r: Resource,
  state: RunState,
  renew: (service: string) => Renewal,
) => {
  const crashing = state === "running" && crashOf(world, r) !== undefined
  r.info = { ...r.info, state: crashing ? "restarting" : infoState[kind][state] }
  place(world, kind, r, state, renew)
  if (state === "running") {
    writeStartLogs(world, kind, r)
    r.info = { ...r.info, deployed_snapshot: snapshotOf(r) }
    if (Array.isArray(r.info.remote_contents)) r.info = { ...r.info, ...deployedFrom(r.info) }
    // A compose file the service keeps is what it deploys, recorded as the one deployed.
    else if (kind === "stack" && typeof r.config.file_contents === "string" && r.config.file_contents !== "")
      r.info = { ...r.info, deployed_contents: [{ path: "compose.yaml", contents: r.config.file_contents }] }
  }
  world.log(logKey(kind, r), kind === "stack" ? "compose" : r.name, `${kind} ${r.name}: ${state}`)
}

/**
 * What an operation does to each service's container: a deploy makes a new one where docker does
 * (a deployment's always; a stack's where its config, files or image changed), a restart restarts it.
 */
const renewal =
  (operation: string, run: StackRun) =>
  (service: string): Renewal => {
    if (operation === "Deploy") return "new"
    if (operation.startsWith("DeployStack")) {
      const named = run.services.length === 0 || run.services.includes(service)
      return named && (run.changed || run.newer.has(service)) ? "new" : "keep"
    }
    return operation.startsWith("Restart") ? "restart" : "keep"
  }

/**
 * A stack's or deployment's lifecycle: the stages its agent runs, logged as the service logs them
 * (Compose.ts), then its new state; a stage that fails changes nothing.
 */
export const lifecycle =
  (operation: string, kind: "stack" | "deployment", state: RunState | undefined) =>
  (world: World, r: Resource, params: Params, update: UpdateRecord): undefined => {
    const run = runOf(world, operation, kind, r, params)
    const stages = kind === "stack" ? stackStages(run.stack) : [deploymentStage(run.deployment(""))]
    const failed = stages.some((s) => s.success === false)
    if (!failed && state !== undefined) settle(world, kind, r, state, renewal(operation, run.stack))
    const ran = kind === "deployment" && !failed ? ownedBy(world, r)[0]?.id : undefined
    record(world, update, ran === undefined ? stages : [deploymentStage(run.deployment(ran))])
    return undefined
  }

/**
 * A deploy a sync's run calls for: its stages logged in an Update of its own, which the sync's
 * log does not hold; the sync's says what it deployed.
 */
export const deployed = (world: World, kind: "stack" | "deployment", r: Resource): ReadonlyArray<string> => {
  const operation = kind === "stack" ? "DeployStack" : "Deploy"
  const own = world.newUpdate(operation, { type: kinds[kind].target, id: r.id }, "", false)
  lifecycle(operation, kind, "running")(world, r, {}, own)
  world.complete(own)
  return [own.success ? `${kind} ${r.name} is now ${infoState[kind].running}` : `${kind} ${r.name}: its deploy failed`]
}
