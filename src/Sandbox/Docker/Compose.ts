/**
 * What the service logs for a stack's or a deployment's lifecycle, stage by
 * stage as its agent runs them: for a stack, git's update of its repository
 * and docker compose (`Compose Pull`, `Compose Up`, and `Compose Command` for
 * start, stop, restart, pause and down); for a deployment, docker itself
 * (`Docker Run`, `Docker Pull`, `Docker Stop`, ...: Deployments.ts). Each stage has the command
 * as the agent ran it and what the process wrote where it wrote it: docker
 * compose and git write their progress to stderr, docker run its container's
 * id to stdout. A step that fails has `success: false` and the process's error
 * in stderr; the stages after it do not run.
 */
import { servicesOf } from "../World/Lifecycle.js"
import type { Params, Resource } from "../World/Store.js"
import type { Container, UpdateRecord, World } from "../World/World.js"

export interface Stage {
  readonly stage: string
  readonly command: string
  readonly stdout?: string
  readonly stderr?: string
  readonly success?: boolean
}

/** Adds `stages` to `update`'s logs, each as run now. */
export const record = (world: World, update: UpdateRecord, stages: ReadonlyArray<Stage>): void => {
  for (const s of stages) {
    const ts = world.now()
    update.logs.push({
      stage: s.stage,
      command: s.command,
      stdout: s.stdout ?? "",
      stderr: s.stderr ?? "",
      success: s.success ?? true,
      start_ts: ts,
      end_ts: ts,
    })
  }
}

/** An id of `length` hex digits, the same for the same text (for layers and digests). */
export const hex = (text: string, length: number) => {
  let out = ""
  for (let round = 0; out.length < length; round++) {
    let h = 0x811c9dc5 ^ round
    for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0
    out += h.toString(16).padStart(8, "0")
  }
  return out.slice(0, length)
}

export const text = (value: unknown) => (typeof value === "string" ? value : "")

/** The services a call names (`services: [...]`), or none for all of them. */
export const requested = (params: Params): ReadonlyArray<string> =>
  Array.isArray(params.services) ? params.services.filter((s): s is string => typeof s === "string") : []

/** The stage the service adds first when a call names some services. */
const servicesStage = (services: ReadonlyArray<string>): ReadonlyArray<Stage> =>
  services.length === 0
    ? []
    : [{ stage: "Service/s", command: "", stdout: `Execution requested for Stack service/s ${services.join(", ")}` }]

// ----- stacks -----

/** A stack's container of one service, as compose names it, and its state before the execution. */
interface Member {
  readonly service: string
  readonly container: string
  readonly before: Container["state"] | undefined
}

/** What a stack's execution works on: the stack, its containers before, what its pull found newer. */
export interface StackRun {
  readonly operation: string
  readonly stack: Resource
  readonly members: ReadonlyArray<Member>
  /** The services a call named (all when empty). */
  readonly services: ReadonlyArray<string>
  /** The services whose image the pull found newer. */
  readonly newer: ReadonlySet<string>
  /** Whether its config or files changed since it was last deployed. */
  readonly changed: boolean
  readonly params: Params
}

const dirOf = (stack: Resource) => `/etc/komodo/stacks/${stack.name}`
const projectOf = (stack: Resource) => text(stack.config.project_name) || stack.name

/** `docker compose -p web -f compose.yaml`, with the env file when the stack has an environment. */
const compose = (stack: Resource) => {
  const files = Array.isArray(stack.config.file_paths) ? (stack.config.file_paths as Array<string>) : []
  const env =
    text(stack.config.environment).trim() === "" ? "" : ` --env-file ${text(stack.config.env_file_path) || ".env"}`
  return `docker compose -p ${projectOf(stack)} -f ${(files.length > 0 ? files : ["compose.yaml"]).join(" -f ")}${env}`
}

const serviceArgs = (services: ReadonlyArray<string>) => (services.length === 0 ? "" : ` ${services.join(" ")}`)

/** Git's update of a stack's repository on its server, before compose runs: the agent pulls it. */
const gitStages = (stack: Resource): ReadonlyArray<Stage> => {
  const repo = text(stack.config.repo)
  if (repo === "" || stack.config.files_on_host === true) return []
  const cd = `cd ${dirOf(stack)} && `
  const branch = text(stack.config.branch) || "main"
  const host = text(stack.config.git_provider) || "github.com"
  const url = `${stack.config.git_https === false ? "http" : "https"}://${host}/${repo}`
  const hash = text(stack.info.latest_hash) || hex(`${stack.name}/${repo}`, 7)
  const message = text(stack.info.latest_message) || "Update compose.yaml"
  return [
    { stage: "Set git remote", command: `${cd}git remote set-url origin ${url}.git` },
    {
      stage: "Checkout branch",
      command: `${cd}git checkout -f ${branch}`,
      stdout: `Your branch is up to date with 'origin/${branch}'.`,
      stderr: `Already on '${branch}'`,
    },
    {
      stage: "Git pull",
      command: `${cd}git pull --rebase --force origin ${branch}`,
      stdout: "Already up to date.",
      stderr: `From ${url}\n * branch            ${branch.padEnd(10)} -> FETCH_HEAD`,
    },
    {
      stage: "Latest Commit",
      command: "git rev-parse --short HEAD && git log -1 --pretty=%B",
      stdout: `hash: ${hash}\nmessage: ${message}`,
    },
  ]
}

const only = (run: StackRun) =>
  run.services.length === 0 ? run.members : run.members.filter((m) => run.services.includes(m.service))

/** `docker compose pull`: each service's image, the layers of those the registry holds newer. */
const pullStage = (run: StackRun): Stage => ({
  stage: "Compose Pull",
  command: `cd ${dirOf(run.stack)} && ${compose(run.stack)} pull${serviceArgs(run.services)}`,
  stderr: only(run)
    .flatMap(({ service }) => {
      const layer = hex(`${run.stack.name}/${service}/${run.operation}`, 12)
      const layers = run.newer.has(service)
        ? [` ${layer} Pulling fs layer`, ` ${layer} Download complete`, ` ${layer} Pull complete`]
        : []
      return [` ${service} Pulling`, ...layers, ` ${service} Pulled`]
    })
    .join("\n"),
})

/** `docker compose up -d`: what is new is created, what changed recreated, then all started; what ran on, runs on. */
const upStage = (run: StackRun): Stage => {
  const members = only(run)
  const network = `${projectOf(run.stack)}_default`
  const fresh = members.every((m) => m.before === undefined)
  const first = members.flatMap((m) => {
    const c = ` Container ${m.container}`
    if (m.before === undefined) return [`${c}  Creating`, `${c}  Created`]
    if (run.changed || run.newer.has(m.service)) return [`${c}  Recreate`, `${c}  Recreated`]
    return m.before === "running" ? [`${c}  Running`] : []
  })
  const starting = members.filter((m) => m.before !== "running" || run.changed || run.newer.has(m.service))
  return {
    stage: "Compose Up",
    command: `cd ${dirOf(run.stack)} && ${compose(run.stack)} up -d${serviceArgs(run.services)}`,
    stderr: [
      ...(fresh ? [` Network ${network}  Creating`, ` Network ${network}  Created`] : []),
      ...first,
      ...starting.map((m) => ` Container ${m.container}  Starting`),
      ...starting.map((m) => ` Container ${m.container}  Started`),
    ].join("\n"),
  }
}

/** The progress compose writes for each verb: before and after, per container. */
const VERBS: Readonly<Record<string, { readonly verb: string; readonly steps: readonly [string, string] }>> = {
  StartStack: { verb: "start", steps: ["Starting", "Started"] },
  RestartStack: { verb: "restart", steps: ["Restarting", "Started"] },
  StopStack: { verb: "stop", steps: ["Stopping", "Stopped"] },
  PauseStack: { verb: "pause", steps: ["Pausing", "Paused"] },
  UnpauseStack: { verb: "unpause", steps: ["Unpausing", "Unpaused"] },
  DestroyStack: { verb: "down", steps: ["Stopping", "Stopped"] },
}

/** `docker compose -p web stop` and the like, run by project name; `start` with no container fails as compose does. */
const commandStage = (run: StackRun): Stage => {
  const { verb, steps } = VERBS[run.operation] ?? { verb: "start", steps: ["Starting", "Started"] }
  const timeout = typeof run.params.stop_time === "number" ? ` --timeout ${run.params.stop_time}` : ""
  const flags =
    verb === "stop" || verb === "down"
      ? `${timeout}${verb === "down" && run.params.remove_orphans === true ? " --remove-orphans" : ""}`
      : ""
  const command = `docker compose -p ${projectOf(run.stack)} ${verb}${flags}${serviceArgs(run.services)}`
  const members = only(run).filter((m) => m.before !== undefined)
  if (members.length === 0 && verb !== "down") {
    const service = run.services[0] ?? only(run)[0]?.service ?? "app"
    return {
      stage: "Compose Command",
      command,
      stderr: `service "${service}" has no container to ${verb}`,
      success: false,
    }
  }
  const live = verb === "down" ? members.filter((m) => m.before !== "exited" && m.before !== "created") : members
  const lines = [
    ...live.map((m) => ` Container ${m.container}  ${steps[0]}`),
    ...live.map((m) => ` Container ${m.container}  ${steps[1]}`),
  ]
  if (verb === "down") {
    const network = `${projectOf(run.stack)}_default`
    lines.push(...members.map((m) => ` Container ${m.container}  Removing`))
    lines.push(...members.map((m) => ` Container ${m.container}  Removed`))
    if (run.services.length === 0) lines.push(` Network ${network}  Removing`, ` Network ${network}  Removed`)
  }
  return { stage: "Compose Command", command, stderr: lines.join("\n") }
}

/** The stages of a stack's execution, as the service logs them. */
export const stackStages = (run: StackRun): ReadonlyArray<Stage> => {
  const named = servicesStage(run.services)
  switch (run.operation) {
    case "DeployStack":
    case "DeployStackIfChanged":
      return [
        ...named,
        ...gitStages(run.stack),
        ...(run.stack.config.auto_pull === false ? [] : [pullStage(run)]),
        upStage(run),
      ]
    case "PullStack":
      return [...named, ...gitStages(run.stack), pullStage(run)]
    default:
      return [...named, commandStage(run)]
  }
}

// ----- deployments -----

/** `docker compose run`: a one-off command in a new container of one service, removed after; an unknown service fails. */
export const composeRun = (stack: Resource, service: string, command: unknown): Stage => {
  const args = Array.isArray(command) ? command.map((a) => ` ${String(a)}`).join("") : ""
  const run = `cd ${dirOf(stack)} && ${compose(stack)} run --rm ${service}${args}`
  if (!servicesOf(stack).includes(service)) {
    return { stage: "Compose Run", command: run, stderr: `no such service: ${service}`, success: false }
  }
  const container = `${projectOf(stack)}-${service}-run-${hex(`${stack.name}/${service}${args}`, 12)}`
  return {
    stage: "Compose Run",
    command: run,
    stderr: ` Container ${container}  Creating\n Container ${container}  Created`,
  }
}
