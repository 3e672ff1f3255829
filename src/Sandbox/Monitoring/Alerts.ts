/**
 * The alerts the service's monitoring raises for the estate: a server that
 * does not answer, or whose CPU, memory or disk is over its thresholds. Each
 * stays open while its condition holds (its level following it) and resolves,
 * with a time, when the condition clears on a later refresh; an admin can
 * close one (CloseAlert). Checks and failed builds raise their own (`raise`).
 */
import type { Handler } from "../Resources/Resources.js"
import { matches } from "../World/Query.js"
import { isRecord } from "../World/Schema.js"
import { adminOnly, type Resource, ref, ServiceFailure } from "../World/Store.js"
import type { AlertRecord, World } from "../World/World.js"

type Level = AlertRecord["level"]

interface Condition {
  readonly type: string
  readonly level: Level
  readonly data: Record<string, unknown>
}

const num = (value: unknown) => (typeof value === "number" ? value : 0)

const over = (percent: number, warning: number, critical: number): Level | undefined =>
  percent >= critical ? "CRITICAL" : percent >= warning ? "WARNING" : undefined

/** What a server's last report calls for, against its thresholds. */
const conditionsOf = (server: Resource): ReadonlyArray<Condition> => {
  const base = { id: server.id, name: server.name, region: String(server.config.region ?? "") }
  if (server.info.state === "NotOk") return [{ type: "ServerUnreachable", level: "CRITICAL", data: base }]
  const stats = isRecord(server.info.stats) ? server.info.stats : undefined
  if (stats === undefined || server.config.enabled === false) return []
  const t = server.config
  const found: Array<Condition> = []
  const cpu = num(stats.cpu_perc)
  const cpuLevel = over(cpu, num(t.cpu_warning), num(t.cpu_critical))
  if (cpuLevel !== undefined) found.push({ type: "ServerCpu", level: cpuLevel, data: { ...base, percentage: cpu } })
  const mem = { used_gb: num(stats.mem_used_gb), total_gb: num(stats.mem_total_gb) }
  const memLevel = over((100 * mem.used_gb) / (mem.total_gb || 1), num(t.mem_warning), num(t.mem_critical))
  if (memLevel !== undefined) found.push({ type: "ServerMem", level: memLevel, data: { ...base, ...mem } })
  const disk = { path: "/", used_gb: num(stats.disk_used_gb), total_gb: num(stats.disk_total_gb) }
  const diskLevel = over((100 * disk.used_gb) / (disk.total_gb || 1), num(t.disk_warning), num(t.disk_critical))
  if (diskLevel !== undefined) found.push({ type: "ServerDisk", level: diskLevel, data: { ...base, ...disk } })
  return found
}

const SERVER_ALERTS = ["ServerUnreachable", "ServerCpu", "ServerMem", "ServerDisk"]

const openAlert = (world: World, target: AlertRecord["target"], type: string) =>
  world.watch.alerts.find((a) => !a.resolved && a.target.id === target.id && a.data.type === type)

/** Opens an alert (or brings the open one of its kind on the target up to date). */
export const raise = (world: World, target: AlertRecord["target"], condition: Condition): AlertRecord => {
  const open = openAlert(world, target, condition.type)
  if (open !== undefined) {
    open.level = condition.level
    open.data = { type: condition.type, data: condition.data }
    return open
  }
  const alert: AlertRecord = {
    _id: { $oid: world.store.newId() },
    ts: world.now(),
    resolved: false,
    level: condition.level,
    target,
    data: { type: condition.type, data: condition.data },
  }
  world.watch.addAlert(alert)
  return alert
}

/** Resolves the open alert of `type` on `target`, if there is one. */
export const resolve = (world: World, target: AlertRecord["target"], type: string): void => {
  const open = openAlert(world, target, type)
  if (open === undefined) return
  open.resolved = true
  open.resolved_ts = world.now()
}

/** A refresh of every server's stats: alerts open and resolve as their conditions do. */
export const refresh = (world: World): void => {
  for (const server of world.store.all("server")) {
    const target = { type: "Server", id: server.id }
    const conditions = conditionsOf(server)
    for (const condition of conditions) raise(world, target, condition)
    for (const type of SERVER_ALERTS) {
      if (!conditions.some((c) => c.type === type)) resolve(world, target, type)
    }
  }
}

const PAGE = 100

export const handlers = (world: World): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const find = (id: string) => {
    const alert = world.watch.alerts.find((a) => a._id.$oid === id)
    if (alert === undefined) throw new ServiceFailure(500, `did not find any Alert matching ${id}`)
    return alert
  }
  routes.set("read/ListAlerts", (p) => {
    const pageNo = typeof p.page === "number" ? p.page : 0
    const newest = world.watch.alerts.filter((a) => matches(a, p.query)).reverse()
    const alerts = newest.slice(pageNo * PAGE, (pageNo + 1) * PAGE)
    return newest.length > (pageNo + 1) * PAGE ? { alerts, next_page: pageNo + 1 } : { alerts }
  })
  routes.set("read/GetAlert", (p) => find(ref(p, "id")))
  routes.set("write/CloseAlert", (p, caller) => {
    adminOnly(caller)
    const alert = find(ref(p, "id"))
    if (!alert.resolved) {
      alert.resolved = true
      alert.resolved_ts = world.now()
    }
    return {}
  })
  return routes
}
