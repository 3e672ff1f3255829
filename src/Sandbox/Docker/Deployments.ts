/**
 * What the service logs for a deployment's lifecycle: one docker command each (`Docker Run`,
 * `Docker Pull`, `Docker Stop`, ...), as its agent runs it, flag by flag, with docker's own output.
 */
import type { Params, Resource } from "../World/Store.js"
import type { Container } from "../World/World.js"
import { hex, type Stage, text } from "./Compose.js"

/** What a deployment's execution works on: the deployment and its container before and after. */
export interface DeploymentRun {
  readonly operation: string
  readonly deployment: Resource
  readonly image: string
  /** Its container's state before, if it had one. */
  readonly before: Container["state"] | undefined
  /** Its container's id after a run. */
  readonly id: string
  /** Whether the pull found a newer image. */
  readonly newer: boolean
  readonly params: Params
}

/** `KEY=value` lines, as the service reads an environment or labels: comments and blank lines left out. */
const pairs = (value: unknown) =>
  text(value)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && line.includes("="))
    .map((line) => [line.slice(0, line.indexOf("=")).trim(), line.slice(line.indexOf("=") + 1).trim()] as const)

const quoted = (value: string) => (/^(["']).*\1$/.test(value) ? value : `"${value}"`)

/** The `docker run` the agent runs for a deployment, flag by flag in the service's order. */
const runCommand = (run: DeploymentRun) => {
  const c = run.deployment.config
  const flags = (value: unknown, flag: string) =>
    text(value)
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => ` ${flag} ${line}`)
      .join("")
  const restart = text(c.restart) || "no"
  return [
    `docker run -d --name ${run.deployment.name} --network ${text(c.network) || "host"}`,
    flags(c.ports, "-p"),
    flags(c.volumes, "-v"),
    pairs(c.environment)
      .map(([k, v]) => ` --env ${k}=${quoted(v)}`)
      .join(""),
    ` --restart ${restart === "on-failure" ? "on-failure:10" : restart}`,
    pairs(c.labels)
      .map(([k, v]) => ` --label ${k}=${quoted(v)}`)
      .join(""),
    Array.isArray(c.extra_args) ? c.extra_args.map((a) => ` ${String(a)}`).join("") : "",
    ` ${run.image}`,
    text(c.command) === "" ? "" : ` ${text(c.command)}`,
  ].join("")
}

/** `docker pull`'s own words: the layers of a newer image, or that it is up to date. */
const pullOutput = (image: string, newer: boolean) => {
  const at = image.lastIndexOf(":")
  const tag = at > image.lastIndexOf("/") ? image.slice(at + 1) : "latest"
  const name = at > image.lastIndexOf("/") ? image.slice(0, at) : image
  const path = name.includes("/") && name.split("/")[0]?.includes(".") ? name.slice(name.indexOf("/") + 1) : name
  const layer = hex(`${image}/layer`, 12)
  return [
    `${tag}: Pulling from ${path}`,
    ...(newer ? [`${layer}: Pulling fs layer`, `${layer}: Verifying Checksum`, `${layer}: Pull complete`] : []),
    `Digest: sha256:${hex(image, 64)}`,
    newer ? `Status: Downloaded newer image for ${image}` : `Status: Image is up to date for ${image}`,
    image,
  ].join("\n")
}

/** `docker stop`, with the signal and the time the call or the deployment's config gives. */
const stopCommand = (run: DeploymentRun) => {
  const signal = text(run.params.signal) || text(run.deployment.config.termination_signal) || "SIGTERM"
  const time =
    typeof run.params.time === "number"
      ? run.params.time
      : typeof run.deployment.config.termination_timeout === "number"
        ? run.deployment.config.termination_timeout
        : 10
  return `docker stop --signal ${signal} --time ${time} ${run.deployment.name}`
}

const DOCKER: Readonly<Record<string, { readonly stage: string; readonly verb: string }>> = {
  StartDeployment: { stage: "Docker Start", verb: "start" },
  RestartDeployment: { stage: "Docker Restart", verb: "restart" },
  PauseDeployment: { stage: "Docker Pause", verb: "pause" },
  UnpauseDeployment: { stage: "Docker Unpause", verb: "unpause" },
}

/** The stage of a deployment's execution, as the service logs it: one docker command. */
export const deploymentStage = (run: DeploymentRun): Stage => {
  const name = run.deployment.name
  const missing = `Error response from daemon: No such container: ${name}`
  switch (run.operation) {
    case "Deploy":
      return { stage: "Docker Run", command: runCommand(run), stdout: run.id }
    case "PullDeployment":
      return { stage: "Docker Pull", command: `docker pull ${run.image}`, stdout: pullOutput(run.image, run.newer) }
    case "StopDeployment":
      return run.before === undefined
        ? { stage: "Docker Stop", command: stopCommand(run), stderr: missing, success: false }
        : { stage: "Docker Stop", command: stopCommand(run), stdout: name }
    case "DestroyDeployment": {
      const command = `${stopCommand(run)} && docker container rm ${name}`
      return run.before === undefined
        ? { stage: "Docker Stop and Remove", command, stderr: missing, success: false }
        : { stage: "Docker Stop and Remove", command, stdout: `${name}\n${name}` }
    }
    default: {
      const { stage, verb } = DOCKER[run.operation] ?? { stage: "Docker Start", verb: "start" }
      const command = `docker ${verb} ${name}`
      return run.before === undefined
        ? { stage, command, stderr: `${missing}\nError: failed to ${verb} containers: ${name}`, success: false }
        : { stage, command, stdout: name }
    }
  }
}
