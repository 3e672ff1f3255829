/**
 * A plan in the words of a confirmation question: short sentences, names in
 * quotes, and a failed read said as such.
 */
import * as Either from "effect/Either"
import type { Plan } from "./PlanShape.js"
import type { Diffs, SyncChanges } from "./SyncChanges.js"

const quoted = (s: string) => JSON.stringify(s)
const noun = (kind: string) => kind.replace(/_/g, " ")
const plural = (kind: string, n: number) => (n === 1 ? noun(kind) : `${noun(kind)}s`)

const changeLines = (label: string, diffs: Diffs<string>): Array<string> => {
  const parts = [
    ["create", diffs.created],
    ["update", diffs.updated],
    ["delete", diffs.deleted],
  ] as const
  const said = parts.filter(([, names]) => names.length > 0).map(([verb, names]) => `${verb} ${names.join(", ")}`)
  return said.length === 0 ? [] : [`- ${label}: ${said.join("; ")}`]
}

const syncText = (sync: string, c: SyncChanges): string => {
  const from =
    c.hash === undefined ? "" : ` from commit ${c.hash}${c.message === undefined ? "" : ` (${quoted(c.message)})`}`
  const lines = [
    ...changeLines("resources", {
      created: c.resources.created.map((r) => `${r.type} ${r.name}`),
      updated: c.resources.updated.map((r) => `${r.type} ${r.name}`),
      deleted: c.resources.deleted.map((r) => `${r.type} ${r.name}`),
    }),
    ...changeLines("variables", c.variables),
    ...changeLines("user groups", c.userGroups),
    ...(c.deploys.length === 0
      ? []
      : [
          `- deploys: ${c.deploys.map((d) => `${d.type} ${d.name}${d.reason === "" ? "" : ` (${d.reason})`}`).join(", ")}`,
        ]),
  ]
  const problems = [
    ...(c.error === undefined ? [] : [`The service could not compute the pending changes: ${c.error}`]),
    ...(c.deployError === undefined ? [] : [`The service could not compute the pending deploys: ${c.deployError}`]),
  ]
  const head =
    lines.length === 0
      ? `Running the sync ${quoted(sync)} has nothing pending to apply${from}, as of its last refresh.`
      : `Running the sync ${quoted(sync)} applies the changes pending${from}, as of its last refresh:`
  return [head, ...lines, ...problems].join("\n")
}

export const render = (plan: Plan): string => {
  switch (plan._tag) {
    case "Delete":
      return Either.match(plan.record, {
        onLeft: (why) =>
          `The ${noun(plan.kind)} ${quoted(plan.target)} could not be read before asking (${why}), so what it is cannot be shown.`,
        onRight: (r) => {
          const where = [
            ...(r.server === undefined ? [] : [`on server ${quoted(r.server)}`]),
            ...(r.state === undefined ? [] : [`now ${r.state}`]),
          ]
          return `This deletes the ${noun(plan.kind)} ${quoted(r.name)}${where.length === 0 ? "" : ` (${where.join(", ")})`}.`
        },
      })
    case "Batch": {
      const what = `${plan.endpoint} with the pattern ${quoted(plan.pattern)}${plan.tags.length === 0 ? "" : ` and the tags ${plan.tags.map(quoted).join(", ")}`}`
      return Either.match(plan.matches, {
        onLeft: (why) => `What ${what} matches could not be read before asking (${why}).`,
        onRight: (names) =>
          names.length === 0
            ? `${what} matches no ${noun(plan.kind)} now: nothing would run.`
            : `${what} matches ${names.length} ${plural(plan.kind, names.length)} now: ${names.join(", ")}. The service runs only those of them that the user may execute.`,
      })
    }
    case "Sync":
      return Either.match(plan.changes, {
        onLeft: (why) =>
          `The sync ${quoted(plan.sync)} could not be read before asking (${why}), so its pending changes cannot be shown.`,
        onRight: (changes) =>
          [
            syncText(plan.sync, changes),
            // Said, not applied to the list: which of the pending changes such a run leaves is the service's to decide.
            ...(plan.only === undefined
              ? []
              : [
                  `This call limits the run to ${plan.only.type} resources${plan.only.resources.length === 0 ? "" : `: ${plan.only.resources.join(", ")}`}.`,
                ]),
          ].join("\n"),
      })
  }
}
