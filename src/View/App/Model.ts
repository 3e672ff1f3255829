/**
 * What the fleet view shows, read from the tools' answers: pure functions, no
 * DOM, so that they are tested in Node. The field names are the service's
 * (ServerListItemInfo, StackListItemInfo, DeploymentListItemInfo,
 * BuildListItemInfo, UpdateListItem).
 */

export type Kind = "server" | "stack" | "deployment" | "build"

export interface Stats {
  readonly cpu?: number
  readonly mem?: number
  readonly disk?: number
  readonly memText?: string
  readonly diskText?: string
}

export interface Row {
  readonly kind: Kind
  readonly id: string
  readonly name: string
  readonly state: string
  readonly tags: ReadonlyArray<string>
  /** Stacks and deployments: the server they run on (its name). */
  readonly server?: string
  readonly updateAvailable?: boolean
  readonly region?: string
  readonly stats?: Stats
  readonly thresholds?: Thresholds
  /** A server: when it last reported its stats. A build: when it was last built. */
  readonly lastSeen?: number
}

interface Thresholds {
  readonly cpu_warning: number
  readonly cpu_critical: number
  readonly mem_warning: number
  readonly mem_critical: number
  readonly disk_warning: number
  readonly disk_critical: number
}

export interface Update {
  readonly id: string
  readonly operation: string
  readonly status: string
  readonly success: boolean
  readonly operator: string
  readonly target: string
  readonly time: number
}

export interface Alert {
  readonly level: "warning" | "critical"
  readonly kind: Kind
  readonly name: string
  readonly text: string
  /** When it opened, where that is known (ms). */
  readonly since?: number
}

export type Json = Record<string, unknown>
export const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)
export const str = (value: unknown): string => (typeof value === "string" ? value : "")
export const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

/** A list answer's items: the structured result is `{result: [...]}` around a list. */
export const itemsOf = (structured: unknown): ReadonlyArray<Json> => {
  const list = isJson(structured) ? structured.result : structured
  return Array.isArray(list) ? list.filter(isJson) : []
}

const percent = (used: number | undefined, total: number | undefined) =>
  used === undefined || total === undefined || total <= 0 ? undefined : (used / total) * 100

const gb = (used: number, total: number) => `${used.toFixed(1)} / ${total.toFixed(0)} GB`

/** CPU, memory and disk as the service reports them (`info.stats`, MinimalSystemStats), when it does. */
const statsOf = (stats: unknown): Stats | undefined => {
  if (!isJson(stats)) return undefined
  const memUsed = num(stats.mem_used_gb)
  const memTotal = num(stats.mem_total_gb)
  const diskUsed = num(stats.disk_used_gb)
  const diskTotal = num(stats.disk_total_gb)
  const cpu = num(stats.cpu_perc)
  const mem = percent(memUsed, memTotal)
  const disk = percent(diskUsed, diskTotal)
  return {
    ...(cpu === undefined ? {} : { cpu }),
    ...(mem === undefined ? {} : { mem, memText: gb(memUsed ?? 0, memTotal ?? 0) }),
    ...(disk === undefined ? {} : { disk, diskText: gb(diskUsed ?? 0, diskTotal ?? 0) }),
  }
}

const thresholdsOf = (value: unknown): Thresholds | undefined => {
  if (!isJson(value)) return undefined
  const keys = ["cpu_warning", "cpu_critical", "mem_warning", "mem_critical", "disk_warning", "disk_critical"] as const
  const out: Record<string, number> = {}
  for (const key of keys) out[key] = num(value[key]) ?? 0
  return out as unknown as Thresholds
}

/** What every row has, read from a list item and its `info`; a state the service leaves out is `unknown`. */
const rowOf = (kind: Kind, item: Json, info: Json, unknown = "unknown") => ({
  kind,
  id: str(item.id),
  name: str(item.name),
  state: str(info.state) || unknown,
  tags: Array.isArray(item.tags) ? item.tags.map(str) : [],
})

export const serverRows = (items: ReadonlyArray<Json>): ReadonlyArray<Row> =>
  items.map((item) => {
    const info = isJson(item.info) ? item.info : {}
    const stats = statsOf(info.stats)
    const thresholds = thresholdsOf(info.alerting_thresholds)
    const lastSeen = isJson(info.stats) ? num(info.stats.refresh_ts) : undefined
    return {
      ...rowOf("server", item, info),
      region: str(info.region),
      ...(stats === undefined ? {} : { stats }),
      ...(thresholds === undefined ? {} : { thresholds }),
      ...(lastSeen === undefined ? {} : { lastSeen }),
    }
  })

/** Builds: their state (BuildState) and when they were last built. */
export const buildRows = (items: ReadonlyArray<Json>): ReadonlyArray<Row> =>
  items.map((item) => {
    const info = isJson(item.info) ? item.info : {}
    const lastSeen = num(info.last_built_at)
    return {
      ...rowOf("build", item, info, "Unknown"),
      ...(lastSeen === undefined || lastSeen <= 0 ? {} : { lastSeen }),
    }
  })

/** Stacks and deployments; the server named by `server_name`, else found by `server_id` among the servers. */
export const runningRows = (
  kind: "stack" | "deployment",
  items: ReadonlyArray<Json>,
  servers: ReadonlyArray<Row>,
): ReadonlyArray<Row> =>
  items.map((item) => {
    const info = isJson(item.info) ? item.info : {}
    const serverId = str(info.server_id)
    const server = str(info.server_name) || servers.find((s) => s.id === serverId)?.name || str(info.swarm_name)
    const services = Array.isArray(info.services) ? info.services.filter(isJson) : []
    const updateAvailable =
      kind === "deployment" ? info.update_available === true : services.some((s) => s.update_available === true)
    return {
      ...rowOf(kind, item, info),
      server,
      updateAvailable,
    }
  })

/** The most recent updates first, each target named when it is one of the rows. */
export const updatesOf = (structured: unknown, rows: ReadonlyArray<Row>, count = 12): ReadonlyArray<Update> => {
  const list = isJson(structured) && Array.isArray(structured.updates) ? structured.updates.filter(isJson) : []
  return list
    .map((u) => {
      const target = isJson(u.target) ? u.target : {}
      const id = str(target.id)
      const named = rows.find((r) => r.id === id)?.name
      return {
        id: str(u.id),
        operation: str(u.operation),
        status: str(u.status),
        success: u.success === true,
        operator: str(u.username) || str(u.operator),
        target: named ?? (str(target.type) === "System" ? "system" : `${str(target.type)} ${id}`.trim()),
        time: num(u.start_ts) ?? 0,
      }
    })
    .sort((a, b) => b.time - a.time)
    .slice(0, count)
}

// The states the service reports for something that is failing (StackState, DeploymentState); stopped is a choice.
export const FAILING = new Set(["unhealthy", "dead", "down", "restarting"])

const over = (value: number | undefined, warning: number, critical: number): Alert["level"] | undefined => {
  if (value === undefined) return undefined
  if (critical > 0 && value >= critical) return "critical"
  if (warning > 0 && value >= warning) return "warning"
  return undefined
}

/**
 * What is open, where the service's own list of alerts is out of reach (the
 * interface's tools have none; SVC_REACH=all lists them, Attention.ts): the
 * conditions it alerts on, read from what it reports: a server not Ok since its
 * last report, CPU, memory or disk past the server's own thresholds, a stack or
 * deployment failing since its last update, an update that failed.
 */
export const alertsOf = (rows: ReadonlyArray<Row>, updates: ReadonlyArray<Update>): ReadonlyArray<Alert> => {
  const alerts: Array<Alert> = []
  const lastUpdate = (name: string) => updates.find((u) => u.target === name)?.time
  const since = (at: number | undefined) => (at === undefined || at <= 0 ? {} : { since: at })
  for (const row of rows) {
    if (row.kind === "build") continue
    if (row.kind === "server") {
      if (row.state === "NotOk") {
        alerts.push({ level: "critical", kind: row.kind, name: row.name, text: "unreachable", ...since(row.lastSeen) })
      }
      const t = row.thresholds
      if (t === undefined || row.stats === undefined) continue
      const checks = [
        ["CPU", row.stats.cpu, t.cpu_warning, t.cpu_critical],
        ["memory", row.stats.mem, t.mem_warning, t.mem_critical],
        ["disk", row.stats.disk, t.disk_warning, t.disk_critical],
      ] as const
      for (const [what, value, warning, critical] of checks) {
        const level = over(value, warning, critical)
        if (level !== undefined && value !== undefined) {
          const limit = level === "critical" ? critical : warning
          alerts.push({
            level,
            kind: row.kind,
            name: row.name,
            text: `${what} at ${Math.round(value)}% (${level} from ${limit}%)`,
          })
        }
      }
    } else if (FAILING.has(row.state)) {
      alerts.push({
        level: row.state === "unhealthy" ? "warning" : "critical",
        kind: row.kind,
        name: row.name,
        text: row.state,
        ...since(lastUpdate(row.name)),
      })
    }
  }
  for (const u of updates) {
    if (u.status === "Complete" && !u.success) {
      const kind = rows.find((r) => r.name === u.target)?.kind ?? "stack"
      alerts.push({ level: "warning", kind, name: u.target, text: `${u.operation} failed`, ...since(u.time) })
    }
  }
  return alerts.sort((a, b) => (a.level === b.level ? 0 : a.level === "critical" ? -1 : 1))
}

export interface Filters {
  readonly kind: Kind | ""
  readonly state: string
  readonly server: string
  readonly tag: string
}

export const NO_FILTERS: Filters = { kind: "", state: "", server: "", tag: "" }

/** Whether a row passes the filters; a server matches the server filter by its own name. */
export const matches = (row: Row, f: Filters): boolean =>
  (f.kind === "" || row.kind === f.kind) &&
  (f.state === "" || row.state === f.state) &&
  (f.server === "" || (row.kind === "server" ? row.name : row.server) === f.server) &&
  (f.tag === "" || row.tags.includes(f.tag))

/** The tool call that acts on a row, with the selectors of interface.md. */
export type Action = "deploy" | "restart" | "stop"

export const actionCall = (row: Row, action: Action): { name: string; arguments: Record<string, unknown> } => {
  if (row.kind === "stack") {
    const operation = action === "deploy" ? "deploy_stack" : `${action}_stack`
    return { name: "svc_execute", arguments: { operation, params: { stack: row.name } } }
  }
  if (row.kind === "deployment") {
    const operation = action === "deploy" ? "deploy" : `${action}_deployment`
    return { name: "svc_execute", arguments: { operation, params: { deployment: row.name } } }
  }
  throw new Error(`a ${row.kind} has no ${action}`)
}

export const detailsCall = (row: Row): { name: string; arguments: Record<string, unknown> } => ({
  name: "svc_get",
  arguments: { resource_type: row.kind, params: { [row.kind]: row.id } },
})
