/**
 * A plan in the words of a confirmation question: short sentences of ours,
 * and in them every value read from the service or a repository quoted on one
 * line and cut (Shared/Quote.ts), so that no name, message or error can start
 * a line of the question, pose as one, or push the rest out of sight. A failed
 * read is said as such, its words on the one line. Lists are bounded, the rest
 * counted; a sync's deletes come first.
 */
import * as Either from "effect/Either"
import * as Kinds from "../Kinds/Kinds.js"
import { listed, oneLine, quote, word } from "../Shared/Quote.js"
import type { SyncChanges } from "../Tools/Sync/SyncChanges.js"
import { fileText } from "./PlanFile.js"
import type { MetaPlan, Plan } from "./PlanShape.js"

const noun = (kind: string) => kind.replace(/_/g, " ")
const plural = (kind: string, n: number) => (n === 1 ? noun(kind) : `${noun(kind)}s`)
/** Why a read failed, in the service's words, on the line of the sentence that says so. */
const why = (reason: string) => `(${oneLine(reason)})`

/** The most changes (and deploys) a sync's question lists, one a line; the rest are counted. */
const SYNC_LINES = 20

type Verb = "delete" | "update" | "create" | "deploy"

/** A sync's changes, one a line, deletes first: each its verb and, made only when shown, its words. */
const changeList = (c: SyncChanges): ReadonlyArray<readonly [Verb, () => string]> => {
  const resource = (r: { readonly type: string; readonly name: string }) => () => `${word(r.type)} ${quote(r.name)}`
  const named = (what: string) => (name: string) => () => `${what} ${quote(name)}`
  const of = (verb: "delete" | "update" | "create", key: "deleted" | "updated" | "created") =>
    [
      ...c.resources[key].map(resource),
      ...c.variables[key].map(named("variable")),
      ...c.userGroups[key].map(named("user group")),
    ].map((said) => [verb, said] as const)
  return [
    ...of("delete", "deleted"),
    ...of("update", "updated"),
    ...of("create", "created"),
    ...c.deploys.map(
      (d) => ["deploy", () => `${resource(d)()}${d.reason === "" ? "" : ` (reason: ${quote(d.reason)})`}`] as const,
    ),
  ]
}

const counted = (verb: Verb, n: number) => `${n} ${n === 1 ? verb : `${verb}s`}`

const syncLines = (c: SyncChanges): ReadonlyArray<string> => {
  const all = changeList(c)
  const shown = all.slice(0, SYNC_LINES).map(([verb, said]) => `- ${verb} ${said()}`)
  if (all.length <= SYNC_LINES) return shown
  const rest = all.slice(SYNC_LINES)
  const verbs = (["delete", "update", "create", "deploy"] as const).flatMap((verb) => {
    const n = rest.filter(([v]) => v === verb).length
    return n === 0 ? [] : [counted(verb, n)]
  })
  return [...shown, `- … and ${rest.length} more: ${verbs.join(", ")}`]
}

const syncText = (sync: string, c: SyncChanges): string => {
  const from =
    c.hash === undefined ? "" : ` from commit ${word(c.hash)}${c.message === undefined ? "" : ` (${quote(c.message)})`}`
  const lines = syncLines(c)
  const problems = [
    ...(c.error === undefined ? [] : [`The service could not compute the pending changes: ${quote(c.error)}`]),
    ...(c.deployError === undefined
      ? []
      : [`The service could not compute the pending deploys: ${quote(c.deployError)}`]),
  ]
  const head =
    lines.length === 0
      ? `Running the sync ${quote(sync)} has nothing pending to apply${from}, as of its last refresh.`
      : `Running the sync ${quote(sync)} applies the changes pending${from}, as of its last refresh:`
  return [head, ...lines, ...problems].join("\n")
}

const metaText = (plan: MetaPlan): string =>
  Either.match(plan.record, {
    onLeft: (reason) =>
      `The ${word(plan.type)} ${quote(plan.target)} could not be read before asking ${why(reason)}, so its meta now cannot be shown.`,
    onRight: (r) => {
      const what = `the ${Kinds.wordOf(plan.type) ?? word(plan.type.toLowerCase())} ${quote(r.name)}`
      const lines: Array<string> = []
      if (r.tags !== undefined) {
        const { now, after, created } = r.tags
        const added = after.filter((t) => !now.includes(t))
        const removed = now.filter((t) => !after.includes(t))
        const adds = listed(added, 20, (t) => (created.includes(t) ? `${quote(t)} (a new tag)` : quote(t)))
        const diff = added.length + removed.length === 0 ? "unchanged" : `adds ${adds}; removes ${listed(removed)}`
        lines.push(`- tags: ${listed(now)} -> ${listed(after)} (${diff})`)
      }
      if (r.description !== undefined)
        lines.push(`- description: ${quote(r.description.now)} -> ${quote(r.description.after)}`)
      if (r.template !== undefined) lines.push(`- template: ${r.template.now} -> ${r.template.after}`)
      return lines.length === 0
        ? `This changes nothing of ${what}'s tags, description or template flag.`
        : [`This sets the meta of ${what}:`, ...lines].join("\n")
    },
  })

export const render = (plan: Plan): string => {
  switch (plan._tag) {
    case "Delete":
      return Either.match(plan.record, {
        onLeft: (reason) =>
          `The ${noun(plan.kind)} ${quote(plan.target)} could not be read before asking ${why(reason)}, so what it is cannot be shown.`,
        onRight: (r) => {
          const where = [
            ...(r.server === undefined ? [] : [`on server ${quote(r.server)}`]),
            ...(r.state === undefined ? [] : [`now ${word(r.state)}`]),
          ]
          return `This deletes the ${noun(plan.kind)} ${quote(r.name)}${where.length === 0 ? "" : ` (${where.join(", ")})`}.`
        },
      })
    case "Batch": {
      const what = `${plan.endpoint} with the pattern ${quote(plan.pattern)}${plan.tags.length === 0 ? "" : ` and the tags ${listed(plan.tags)}`}`
      return Either.match(plan.matches, {
        onLeft: (reason) => `What ${what} matches could not be read before asking ${why(reason)}.`,
        onRight: (names) =>
          names.length === 0
            ? `${what} matches no ${noun(plan.kind)} now: nothing would run.`
            : `${what} matches ${names.length + plan.more} ${plural(plan.kind, names.length + plan.more)} now: ${listed(names, names.length)}${plan.more === 0 ? "" : `, … and ${plan.more} more`}. The service runs only those of them that the user may execute.`,
      })
    }
    case "Sync":
      return Either.match(plan.changes, {
        onLeft: (reason) =>
          `The sync ${quote(plan.sync)} could not be read before asking ${why(reason)}, so its pending changes cannot be shown.`,
        onRight: (changes) =>
          [
            syncText(plan.sync, changes),
            // Said, not applied to the list: which of the pending changes such a run leaves is the service's to decide.
            ...(plan.only === undefined
              ? []
              : [
                  `This call limits the run to ${word(plan.only.type)} resources${plan.only.resources.length === 0 ? "" : `: ${listed(plan.only.resources)}`}.`,
                ]),
          ].join("\n"),
      })
    case "Meta":
      return metaText(plan)
    case "File":
      return fileText(plan)
    case "Access":
      return Either.match(plan.said, {
        onLeft: (reason) => `What this call touches could not be read before asking ${why(reason)}.`,
        onRight: (said) => said,
      })
  }
}
