/**
 * What needs someone first, in the order the view shows it: the open alerts,
 * then what is unhealthy (a crash-looping or unhealthy stack or deployment, an
 * unreachable server, a failed build), then the rest. Pure functions, tested in
 * Node as Model.ts's are.
 */
import { type Alert, FAILING, isJson, type Json, type Kind, num, type Row, str } from "./Model.js"

// A ResourceTarget's type, as the view's kinds; the others keep their own name.
const KINDS: Readonly<Record<string, Kind>> = {
  Server: "server",
  Stack: "stack",
  Deployment: "deployment",
  Build: "build",
}

const percentOf = (used: number | undefined, total: number | undefined) =>
  used === undefined || total === undefined || total <= 0 ? "" : ` at ${Math.round((used / total) * 100)}%`

/** What an alert says, by its variant (AlertData); a variant without words here is spelled out. */
const textOf = (type: string, data: Json): string => {
  switch (type) {
    case "ServerUnreachable":
      return "unreachable"
    case "ServerCpu":
      return `CPU${num(data.percentage) === undefined ? "" : ` at ${Math.round(num(data.percentage) ?? 0)}%`}`
    case "ServerMem":
      return `memory${percentOf(num(data.used_gb), num(data.total_gb))}`
    case "ServerDisk":
      return `disk${percentOf(num(data.used_gb), num(data.total_gb))}${["", "/"].includes(str(data.path)) ? "" : ` on ${str(data.path)}`}`
    case "ContainerStateChange":
    case "StackStateChange":
      return `${str(data.from)} → ${str(data.to)}`
    default:
      return type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
  }
}

/**
 * The service's open alerts (`svc_list` of `alert`, its records: `{alerts: [Alert]}`),
 * each with its target by name where it is one of the rows, else as the alert names it.
 */
export const serviceAlertsOf = (structured: unknown, rows: ReadonlyArray<Row>): ReadonlyArray<Alert> => {
  const list = isJson(structured) && Array.isArray(structured.alerts) ? structured.alerts.filter(isJson) : []
  return list.flatMap((alert): ReadonlyArray<Alert> => {
    const level = str(alert.level)
    if (alert.resolved === true || level === "OK") return []
    const target = isJson(alert.target) ? alert.target : {}
    const data = isJson(alert.data) ? alert.data : {}
    const inner = isJson(data.data) ? data.data : {}
    const row = rows.find((r) => r.id === str(target.id))
    const ts = num(alert.ts)
    return [
      {
        level: level === "CRITICAL" ? "critical" : "warning",
        kind: row?.kind ?? KINDS[str(target.type)] ?? "server",
        name: row?.name ?? (str(inner.name) || str(target.type) || "system"),
        text: textOf(str(data.type), inner),
        ...(ts === undefined || ts <= 0 ? {} : { since: ts }),
      },
    ]
  })
}

/** Why a row is unhealthy, or undefined when it is not; a stopped stack or an idle build is a choice. */
const problemOf = (row: Row): string | undefined => {
  if (row.kind === "server") return row.state === "NotOk" ? "unreachable" : undefined
  if (row.kind === "build") return row.state === "Failed" ? "last build failed" : undefined
  if (!FAILING.has(row.state)) return undefined
  return row.state === "restarting" ? "crash-looping: its container restarts" : row.state
}

// Workloads first (what users reach), then the servers they run on, then what builds them.
const RANK: Readonly<Record<Kind, number>> = { deployment: 0, stack: 0, server: 1, build: 2 }

export interface Ordered {
  /** Critical before warning; within each, the newest first, those without a time last. */
  readonly alerts: ReadonlyArray<Alert>
  /** Unhealthy rows, each with why. */
  readonly unhealthy: ReadonlyArray<{ readonly row: Row; readonly problem: string }>
  /** Every other row, in the order given. */
  readonly rest: ReadonlyArray<Row>
}

/** The view's order: open alerts, then unhealthy rows, then the rest; each row in one place. */
export const ordered = (rows: ReadonlyArray<Row>, alerts: ReadonlyArray<Alert>): Ordered => {
  const level = (a: Alert) => (a.level === "critical" ? 0 : 1)
  const sorted = [...alerts].sort((a, b) => level(a) - level(b) || (b.since ?? -1) - (a.since ?? -1))
  const unhealthy = rows.flatMap((row) => {
    const problem = problemOf(row)
    return problem === undefined ? [] : [{ row, problem }]
  })
  return {
    alerts: sorted,
    unhealthy: unhealthy.sort((a, b) => RANK[a.row.kind] - RANK[b.row.kind]),
    rest: rows.filter((row) => problemOf(row) === undefined),
  }
}
