/**
 * svc_execute with `wait` (and a rename that answers an Update): follows the
 * Updates an execution started, reading each with read/GetUpdate once a poll
 * interval (a second when served), until each is Complete or time runs out.
 *
 * As the service runs them: the Update it answers at once is already
 * `InProgress` with `success: true` (success means nothing until Complete);
 * DeployStackIfChanged answers an Update with no `_id` when nothing changed,
 * which was never stored and cannot be followed; a batch answers
 * `{status: "Ok", data: Update}` or `{status: "Err", data: {name, error}}` per target.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { SvcError } from "../Service/Errors.js"
import { SvcClient } from "../SvcClient.js"
import * as Progress from "./Catalog/Progress.js"
import { DONE } from "./Records/Executed.js"

/** How a wait goes: how long it lasts, and how long between two rounds of reads. */
export interface Pace {
  readonly waitTimeoutMs: number
  readonly waitPollMs: number
}

/** After each round of reads: the next one an interval later, while some Update is still running. */
const following = (interval: Duration.Duration) =>
  Schedule.spaced(interval).pipe(Schedule.whileInput((running: number) => running > 0))

interface Update {
  readonly _id?: { readonly $oid: string }
  readonly operation: string
  readonly status: string
  readonly success?: boolean
}

export const isUpdate = (value: unknown): value is Update =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Update).operation === "string" &&
  typeof (value as Update).status === "string"

const idOf = (u: Update): string | undefined => (typeof u._id?.$oid === "string" ? u._id.$oid : undefined)

interface Failed {
  readonly name: string
  readonly error: string
}

const isOk = (item: unknown): item is { status: "Ok"; data: Update } =>
  (item as { status?: unknown } | null)?.status === "Ok" && isUpdate((item as { data?: unknown }).data)

const failedOf = (item: unknown): Failed | undefined => {
  if ((item as { status?: unknown } | null)?.status !== "Err") return undefined
  const data = (item as { data?: { name?: unknown; error?: { error?: unknown } | unknown } }).data
  const error = (data?.error as { error?: unknown } | undefined)?.error ?? data?.error
  return {
    name: typeof data?.name === "string" ? data.name : "(unnamed)",
    error: typeof error === "string" ? error : JSON.stringify(error ?? "unknown error"),
  }
}

export interface Waited {
  /** The answer with each Update replaced by its last known state. */
  readonly data: unknown
  /** A plain sentence: did it succeed, fail, or is it still running? */
  readonly summary: string
}

const outcome = (u: Update) =>
  u.status === "Complete" ? (u.success === true ? "Complete, succeeded" : "Complete, FAILED") : u.status

/** One line of progress: the operation and its status, or for several, how many are complete. */
const progressLine = (updates: ReadonlyArray<Update>, failed: number, endpoint: string): string => {
  if (updates.length === 1 && failed === 0) {
    const [u] = updates as [Update]
    const unchanged = idOf(u) === undefined && endpoint.endsWith("IfChanged")
    return `${u.operation}: ${unchanged ? "nothing changed" : outcome(u)}`
  }
  const complete = updates.filter((u) => u.status === "Complete").length
  const states = updates.map((u) => `${u.operation} ${u.status}`).join(", ")
  const notStarted = failed > 0 ? `; ${failed} could not start` : ""
  return `${complete} of ${updates.length} complete (${states})${notStarted}`
}

const FOLLOW = "follow it with svc_list_detail updates, or call svc_execute again later"

const single = (u: Update, endpoint: string, timeoutMs: number, withId: boolean): string => {
  const id = idOf(u)
  if (id === undefined) {
    // Never stored, so there is nothing to follow: for DeployStackIfChanged that means nothing changed.
    if (endpoint.endsWith("/DeployStackIfChanged")) {
      return `${u.operation}: nothing had changed, so nothing was deployed (the service started no update).`
    }
    if (u.status !== "Complete") return `${u.operation} has no update id to follow (status ${u.status}).`
  }
  // Still running, the sentence names what to follow, whatever the answer shows.
  const named = id !== undefined && (withId || u.status !== "Complete")
  const what = `${u.operation}${named ? ` (update ${id})` : ""}`
  if (u.status !== "Complete")
    return `${what} is still running after ${timeoutMs / 1000} s (status ${u.status}); ${FOLLOW}.`
  return u.success === true ? `${what} succeeded.` : `${what} FAILED: see its logs below.`
}

const several = (
  updates: ReadonlyArray<Update>,
  failed: ReadonlyArray<Failed>,
  endpoint: string,
  timeoutMs: number,
): string => {
  const followed = updates.filter((u) => idOf(u) !== undefined)
  const unfollowed = updates.length - followed.length
  const done = followed.filter((u) => u.status === "Complete")
  const failures = done.filter((u) => u.success !== true).length
  const running = followed.length - done.length
  const parts = [`${done.length - failures} succeeded`, `${failures} failed`]
  if (unfollowed > 0) {
    parts.push(
      endpoint.endsWith("IfChanged")
        ? `${unfollowed} unchanged (nothing to deploy)`
        : `${unfollowed} with no update id to follow`,
    )
  }
  if (running > 0) parts.push(`${running} still running after ${timeoutMs / 1000} s (${FOLLOW})`)
  if (failed.length > 0) {
    parts.push(`${failed.length} could not start (${failed.map((f) => `${f.name}: ${f.error}`).join("; ")})`)
  }
  return `${updates.length + failed.length} operations: ${parts.join(", ")}.`
}

/**
 * Follows what `data` started. `endpoint` is the call that answered it, e.g.
 * `execute/DeployStackIfChanged`. Progress: one notification as soon as the
 * execution has started, one per change, and the last before the answer.
 * `withId`: the summary names the Update's id (an answer at a glance shows it already).
 */
export const follow = (
  data: unknown,
  { waitTimeoutMs: timeoutMs, waitPollMs }: Pace,
  endpoint = "",
  withId = true,
): Effect.Effect<Waited, SvcError, SvcClient> =>
  Effect.gen(function* () {
    const client = yield* SvcClient
    const progress = yield* Progress.current
    const batch = Array.isArray(data)
    const started: ReadonlyArray<Update> = isUpdate(data) ? [data] : batch ? data.filter(isOk).map((i) => i.data) : []
    const failed = batch ? data.flatMap((item) => failedOf(item) ?? []) : []
    // The latest state of each Update, by its place in `started`.
    const latest = [...started]
    const pending = () =>
      latest.flatMap((u, i) => {
        const id = idOf(u)
        return u.status !== "Complete" && id !== undefined ? [{ i, id }] : []
      })

    let sent = 0
    let last = ""
    const report = (force: boolean) =>
      Effect.gen(function* () {
        if (latest.length === 0) return
        const line = progressLine(latest, failed.length, endpoint)
        if (line === last && !force) return
        last = line
        yield* progress.report(++sent, line)
      })

    yield* report(true)
    /** One round: each running Update read again; how many are still running after it. */
    const round = Effect.gen(function* () {
      const answers = yield* Effect.forEach(
        pending(),
        ({ i, id }) => Effect.map(client.call("read", "GetUpdate", { id }), (answer) => ({ i, answer })),
        { concurrency: 8 },
      )
      for (const { i, answer } of answers) if (isUpdate(answer)) latest[i] = answer
      yield* report(false)
      return pending().length
    })
    const interval = Duration.millis(waitPollMs)
    const poll =
      pending().length === 0 ? Effect.void : round.pipe(Effect.delay(interval), Effect.repeat(following(interval)))
    const finished = yield* poll.pipe(Effect.timeoutOption(Duration.millis(timeoutMs)))
    // Timed out: the last word before the answer says so.
    if (Option.isNone(finished)) {
      yield* progress.report(
        ++sent,
        `${progressLine(latest, failed.length, endpoint)}; still running after ${timeoutMs / 1000} s`,
      )
    }
    return waited(data, latest, failed, { endpoint, timeoutMs, withId })
  })

/** The answer with each Update as last read, in its place, and the summary of them all. */
const waited = (
  data: unknown,
  latest: ReadonlyArray<Update>,
  failed: ReadonlyArray<Failed>,
  { endpoint, timeoutMs, withId }: { readonly endpoint: string; readonly timeoutMs: number; readonly withId: boolean },
): Waited => {
  let next = 0
  const updated = isUpdate(data)
    ? latest[0]
    : Array.isArray(data)
      ? data.map((item) => (isOk(item) ? { ...item, data: latest[next++] } : item))
      : data
  const summary =
    latest.length === 1 && failed.length === 0
      ? single(latest[0] as Update, endpoint, timeoutMs, withId)
      : latest.length === 0 && failed.length === 0
        ? DONE
        : several(latest, failed, endpoint, timeoutMs)
  return { data: updated, summary }
}
