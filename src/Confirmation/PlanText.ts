/**
 * A plan in the words of a confirmation question: short sentences, names in
 * quotes, and a failed read said as such.
 */
import * as Either from "effect/Either"
import type { Diffs, SyncChanges } from "../Tools/SyncChanges.js"
import type { FilePlan, MetaPlan, Plan } from "./PlanShape.js"

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

const cut = (s: string) => quoted(s.length > 200 ? `${s.slice(0, 197)}...` : s)
const listed = (names: ReadonlyArray<string>) => (names.length === 0 ? "none" : names.map(quoted).join(", "))

const metaText = (plan: MetaPlan): string =>
  Either.match(plan.record, {
    onLeft: (why) =>
      `The ${plan.type} ${quoted(plan.target)} could not be read before asking (${why}), so its meta now cannot be shown.`,
    onRight: (r) => {
      const what = `the ${plan.type === "ResourceSync" ? "sync" : plan.type.toLowerCase()} ${quoted(r.name)}`
      const lines: Array<string> = []
      if (r.tags !== undefined) {
        const { now, after, created } = r.tags
        const added = after.filter((t) => !now.includes(t))
        const removed = now.filter((t) => !after.includes(t))
        const adds = added.map((t) => (created.includes(t) ? `${quoted(t)} (a new tag)` : quoted(t)))
        const diff =
          added.length + removed.length === 0
            ? "unchanged"
            : `adds ${adds.length === 0 ? "none" : adds.join(", ")}; removes ${listed(removed)}`
        lines.push(`- tags: ${listed(now)} -> ${listed(after)} (${diff})`)
      }
      if (r.description !== undefined)
        lines.push(`- description: ${cut(r.description.now)} -> ${cut(r.description.after)}`)
      if (r.template !== undefined) lines.push(`- template: ${r.template.now} -> ${r.template.after}`)
      return lines.length === 0
        ? `This changes nothing of ${what}'s tags, description or template flag.`
        : [`This sets the meta of ${what}:`, ...lines].join("\n")
    },
  })

const lines = (n: number) => `${n} ${n === 1 ? "line" : "lines"}`

const fileText = (plan: FilePlan): string =>
  Either.match(plan.record, {
    onLeft: (why) =>
      `The ${noun(plan.kind)} ${quoted(plan.target)} could not be read before asking (${why}), so its file ${quoted(plan.path)} now cannot be shown; the new contents have ${lines(plan.lines)}.`,
    onRight: (r) => {
      const head = `This writes ${quoted(plan.path)} of the ${noun(plan.kind)} ${quoted(r.name)}${r.where === undefined ? "" : ` (${r.where})`}:`
      if (r.now === "new") return `${head} a new file of ${lines(plan.lines)}.`
      if (r.now === "unread")
        return `${head} ${lines(plan.lines)}; its contents now are not in the service's cache (a refresh of its cache reads them), so what changes cannot be shown.`
      if (r.first === undefined) return `${head} ${lines(plan.lines)}, the same as now: its contents do not change.`
      const { line, now, after } = r.first
      const change =
        now === undefined ? `${after} added` : after === undefined ? `${now} removed` : `${now} -> ${after}`
      return `${head} ${lines(r.now)} now, ${lines(plan.lines)} after; the first change is at line ${line}: ${change}.`
    },
  })

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
            : `${what} matches ${names.length + plan.more} ${plural(plan.kind, names.length + plan.more)} now: ${names.join(", ")}${plan.more === 0 ? "" : ` … and ${plan.more} more`}. The service runs only those of them that the user may execute.`,
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
    case "Meta":
      return metaText(plan)
    case "File":
      return fileText(plan)
    case "Access":
      return Either.match(plan.said, {
        onLeft: (why) => `What this call touches could not be read before asking (${why}).`,
        onRight: (said) => said,
      })
  }
}
