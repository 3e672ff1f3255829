/**
 * svc_execute with `wait`: follows the Updates an execution started, with
 * read/GetUpdate about once a second, until each is Complete or time runs out.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SvcClient } from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"

/** Where progress goes while a call waits; absent, progress is not reported. */
export class Progress extends Context.Tag("svc-mcp/Progress")<
  Progress,
  { readonly report: (progress: number, message: string) => Effect.Effect<void> }
>() {}

export const POLL_INTERVAL = Duration.seconds(1)

interface Update {
  readonly _id: { readonly $oid: string }
  readonly operation?: string
  readonly status?: string
  readonly success?: boolean
}

const isUpdate = (value: unknown): value is Update =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Update)._id?.$oid === "string" &&
  typeof (value as Update).status === "string"

/** A batch answers `{status: "Ok", data: Update}` for what it started, `{status: "Err", ...}` for what it could not. */
const startedBy = (data: unknown): ReadonlyArray<Update> => {
  if (isUpdate(data)) return [data]
  if (!Array.isArray(data)) return []
  return data.flatMap((item) => (item?.status === "Ok" && isUpdate(item.data) ? [item.data] : []))
}

export interface Waited {
  /** The answer with each Update replaced by its last known state. */
  readonly data: unknown
  /** A plain sentence: did it succeed, fail, or is it still running? */
  readonly summary: string
}

const describe = (updates: ReadonlyArray<Update>, notStarted: number, timeoutMs: number): string => {
  const done = updates.filter((u) => u.status === "Complete")
  const running = updates.length - done.length
  const failed = done.filter((u) => u.success !== true).length
  const follow = "follow it with svc_list_detail updates, or call svc_execute again later"
  if (updates.length === 1 && notStarted === 0) {
    const [u] = updates as [Update]
    const what = `${u.operation ?? "The operation"} (update ${u._id.$oid})`
    if (running > 0) return `${what} is still running after ${timeoutMs / 1000} s (status ${u.status}); ${follow}.`
    return u.success === true ? `${what} succeeded.` : `${what} FAILED: see its logs below.`
  }
  const parts = [`${done.length - failed} succeeded`, `${failed} failed`]
  if (running > 0) parts.push(`${running} still running after ${timeoutMs / 1000} s (${follow})`)
  if (notStarted > 0) parts.push(`${notStarted} could not start`)
  return `${updates.length + notStarted} operations: ${parts.join(", ")}.`
}

export const follow = (data: unknown, timeoutMs: number): Effect.Effect<Waited, SvcError, SvcClient> =>
  Effect.gen(function* () {
    const client = yield* SvcClient
    const progress = yield* Effect.serviceOption(Progress)
    const started = startedBy(data)
    const notStarted = Array.isArray(data) ? data.length - started.length : 0
    const latest = new Map(started.map((u) => [u._id.$oid, u]))
    const pending = () => [...latest.values()].filter((u) => u.status !== "Complete")

    let polls = 0
    const poll = Effect.gen(function* () {
      while (pending().length > 0) {
        yield* Effect.sleep(POLL_INTERVAL)
        const answers = yield* Effect.forEach(pending(), (u) => client.call("read", "GetUpdate", { id: u._id.$oid }), {
          concurrency: 8,
        })
        for (const answer of answers) if (isUpdate(answer)) latest.set(answer._id.$oid, answer)
        polls++
        if (Option.isSome(progress)) {
          const states = [...latest.values()].map((u) => u.status)
          const complete = states.filter((s) => s === "Complete").length
          yield* progress.value.report(polls, `${complete} of ${states.length} complete (${states.join(", ")})`)
        }
      }
    })
    yield* poll.pipe(Effect.timeoutOption(Duration.millis(timeoutMs)))

    const final = (u: Update) => latest.get(u._id.$oid) ?? u
    const updated = isUpdate(data)
      ? final(data)
      : Array.isArray(data)
        ? data.map((item) =>
            item?.status === "Ok" && isUpdate(item.data) ? { ...item, data: final(item.data) } : item,
          )
        : data
    return { data: updated, summary: describe([...latest.values()], notStarted, timeoutMs) }
  })
