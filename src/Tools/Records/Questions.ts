/**
 * What people ask of each type a glance covers, and the field that answers each, as data: by the
 * endpoint whose record the glance shows (RecordViews.ts), each question's label in the glance and
 * the paths of the definitions it is read from. `from`: the endpoint whose answer holds them, where
 * the record does not: a kind's state is its list item's, where its glance asks it (service-notes.md:
 * a full record's `info` has no state), read beside the record
 * (Listed.ts); which list, and where in its item, is the table of kinds' (Kinds/Kinds.ts).
 * `reads`: how the answer is made of its paths (Answers.ts); none where a label of the view answers
 * it as the field is. `fields`: the paths `fields` takes the label for, where they are more than the
 * glance shows (a stack's `files`: their paths and their contents, in one call). RecordGlance.ts adds
 * each answer the view lacks; a test holds every glance to this table and every path to the definitions.
 */

import * as Kinds from "../../Kinds/Kinds.js"

export type Reads = "listed" | "url" | "keys" | "runs" | "numbers" | "files_at"

export interface Question {
  readonly asks: string
  readonly label: string
  readonly paths: ReadonlyArray<string>
  readonly from?: string
  readonly reads?: Reads
  readonly fields?: ReadonlyArray<string>
}

export interface Questions {
  readonly questions: ReadonlyArray<Question>
  /** The first line's pointer to more, where it is one of the labels rather than a path. */
  readonly more?: string
  /** The view's switches no one asks of while they are off: shown only when on, as the glance is kept short. */
  readonly quiet?: ReadonlyArray<string>
}

const ask = (asks: string, label: string, ...paths: ReadonlyArray<string>): Question => ({ asks, label, paths })
const NAME = ask("what is it called", "name", "name")
const ID = ask("its id", "id", "_id.$oid")
const TAGS = ask("its tags", "tags", "tags")
const SERVER = ask("where does it run", "server", "config.server_id")
/** A kind's state, read from its list item where the table of kinds says it is. */
const listed = (asks: string, kind: Kinds.Kind & { readonly state: string }): Question => ({
  asks,
  label: "state",
  paths: [kind.state],
  from: `read/${kind.list}`,
  reads: "listed",
})

/** A stack's files: where they are and, asked by `fields: ["files"]`, their paths and contents. */
const FILES: ReadonlyArray<Question> = [
  {
    asks: "where are its files",
    label: "files_at",
    paths: ["config.files_on_host", "config.repo", "config.linked_repo", "config.file_contents"],
    reads: "files_at",
  },
  {
    asks: "which files, and what they hold",
    label: "files",
    paths: ["config.file_paths"],
    // Written in the service, or as the service last read them from the repository or the server (its cache), and as deployed.
    fields: ["config.file_paths", "config.file_contents", "info.remote_contents", "info.deployed_contents"],
  },
]

const CONTAINER: Questions = {
  questions: [
    ask("is it running", "state", "State.Status"),
    ask("is it healthy", "health", "State.Health.Status"),
    ask("which image", "image", "Config.Image"),
    ask("why did it stop", "exit_code", "State.ExitCode"),
    ask("how often has it restarted", "restarts", "RestartCount"),
  ],
}
const SWARM_SERVICE: Questions = {
  questions: [
    ask("how many run of how many", "running", "ServiceStatus.RunningTasks"),
    ask("how many are wanted", "desired", "ServiceStatus.DesiredTasks"),
    ask("which image", "image", "Spec.TaskTemplate.ContainerSpec.Image"),
  ],
}

export const QUESTIONS: Readonly<Record<string, Questions>> = {
  "read/GetStack": {
    questions: [
      NAME,
      ID,
      listed("is it running", Kinds.KINDS.stack),
      SERVER,
      ask("which services", "services", "info.deployed_services.service_name"),
      ...FILES,
    ],
    more: '["files"] for its files',
    quiet: ["auto_update", "poll_for_updates", "send_alerts"],
  },
  "read/GetDeployment": {
    questions: [
      NAME,
      ID,
      listed("is it running", Kinds.KINDS.deployment),
      SERVER,
      ask("which image", "image", "config.image.params.image"),
      ask("which ports", "ports", "config.ports"),
      {
        asks: "which environment variables (keys, never values)",
        label: "env",
        paths: ["config.environment"],
        reads: "keys",
      },
    ],
    quiet: ["auto_update", "send_alerts"],
  },
  "read/GetBuild": {
    questions: [
      NAME,
      listed("did its last build succeed", Kinds.KINDS.build),
      ask("when did it last build", "last_built_at", "info.last_built_at"),
      ask("which version", "version", "config.version"),
      ask("from which repository", "repo", "config.repo"),
    ],
  },
  "read/GetServer": {
    questions: [
      NAME,
      listed("does the service reach it", Kinds.KINDS.server),
      ask("at which address", "address", "config.address"),
      ask("is it enabled", "enabled", "config.enabled"),
    ],
  },
  "read/GetProcedure": {
    questions: [
      NAME,
      {
        asks: "what does each stage run",
        label: "stages",
        paths: ["config.stages.name", "config.stages.executions.execution", "config.stages.enabled"],
        reads: "runs",
      },
      ask("when does it run", "schedule", "config.schedule"),
    ],
    quiet: ["schedule_enabled"],
  },
  "read/GetAction": {
    questions: [NAME, TAGS, ask("when does it run", "schedule", "config.schedule")],
    quiet: ["schedule_enabled", "run_at_startup"],
  },
  "read/GetAlerter": {
    questions: [
      NAME,
      ask("is it on", "enabled", "config.enabled"),
      ask("what kind of endpoint", "endpoint", "config.endpoint.type"),
      {
        asks: "where does it send (credential masked)",
        label: "url",
        paths: ["config.endpoint.params.url"],
        reads: "url",
      },
      ask("which alerts", "alert_types", "config.alert_types"),
    ],
  },
  "read/GetRepo": {
    questions: [
      NAME,
      listed("did its last clone, pull or build hold", Kinds.KINDS.repo),
      SERVER,
      ask("from which repository", "repo", "config.repo"),
      ask("which commit", "latest_hash", "info.latest_hash"),
    ],
  },
  "read/GetBuilder": { questions: [NAME, ask("what kind", "type", "config.type")] },
  "read/GetSwarm": { questions: [NAME, ask("on which servers", "servers", "config.server_ids")] },
  "read/GetUserGroup": { questions: [NAME, ask("who is in it", "users", "users")] },
  "read/GetAlert": {
    questions: [
      ask("when", "ts", "ts"),
      ask("how bad", "level", "level"),
      ask("about what", "target", "target"),
      ask("what kind", "what", "data.type"),
      {
        asks: "the values that raised it",
        label: "values",
        paths: ["data.data.percentage", "data.data.used_gb", "data.data.total_gb", "data.data.from", "data.data.to"],
        reads: "numbers",
      },
      ask("is it over", "resolved", "resolved"),
    ],
  },
  "read/FindUser": {
    questions: [
      ask("who", "username", "username"),
      ask("may they sign in", "enabled", "enabled"),
      ask("are they an admin", "admin", "admin"),
    ],
  },
  "read/InspectContainer": CONTAINER,
  "read/InspectDeploymentContainer": CONTAINER,
  "read/InspectStackContainer": CONTAINER,
  "read/InspectImage": { questions: [ask("which tags", "tags", "RepoTags"), ask("how big", "size", "Size")] },
  "read/InspectNetwork": {
    questions: [ask("which driver", "driver", "Driver"), ask("which subnet", "subnet", "IPAM.Config.Subnet")],
  },
  "read/InspectSwarmService": SWARM_SERVICE,
  "read/InspectDeploymentSwarmService": SWARM_SERVICE,
  "read/InspectStackSwarmService": SWARM_SERVICE,
  "read/InspectSwarm": { questions: [ask("which swarm", "id", "ID")] },
  "read/InspectSwarmStack": {
    questions: [ask("is it running", "state", "State"), ask("which services", "services", "Services.Name")],
  },
  "read/InspectSwarmNode": {
    questions: [ask("is it up", "state", "Status.State"), ask("manager or worker", "role", "Spec.Role")],
  },
  "read/InspectSwarmTask": {
    questions: [ask("is it running", "state", "Status.State"), ask("what was wanted", "desired", "DesiredState")],
  },
}

/** The questions answered by a reader of their own, not a label of the view (Answers.ts). */
export const readOf = (endpoint: string): ReadonlyArray<Question & { readonly reads: Reads }> =>
  (QUESTIONS[endpoint]?.questions ?? []).filter((q): q is Question & { readonly reads: Reads } => q.reads !== undefined)

/** The kind whose list item holds what the record of `endpoint` lacks (its state), where its glance asks it. */
export const listOf = (endpoint: string): Kinds.Kind | undefined => {
  const from = QUESTIONS[endpoint]?.questions.find((q) => q.reads === "listed")?.from
  return from === undefined ? undefined : Kinds.byList(from.replace("read/", ""))
}
