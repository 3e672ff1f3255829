/**
 * Rendering's pieces: each part of the view is drawn whole from the state when
 * a change touches it (a few hundred rows at most), with text set as text, never
 * as HTML: names and states come from the infrastructure.
 */
import type { Alert, Filters, Row, Stats, Update } from "./Model.js"

type Child = Node | string | undefined | false
type Attrs = Record<string, string | boolean | ((event: Event) => void)>

/** An element with attributes, handlers (`on…`) and children. */
export const h = (tag: string, attrs: Attrs = {}, ...children: ReadonlyArray<Child>): HTMLElement => {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === "function") el.addEventListener(key.slice(2), value)
    else if (value === true) el.setAttribute(key, "")
    else if (value !== false) el.setAttribute(key, value)
  }
  for (const child of children) {
    if (child === undefined || child === false) continue
    el.append(typeof child === "string" ? document.createTextNode(child) : child)
  }
  return el
}

/** A state's tone: good, neutral (stopped by choice), warn, bad. */
const tone = (state: string): string => {
  if (["Ok", "running", "Healthy", "succeeded"].includes(state)) return "good"
  if (["NotOk", "dead", "down", "unhealthy", "Unhealthy", "failed"].includes(state)) return "bad"
  if (["deploying", "restarting", "removing", "stopping", "created", "paused", "Queued", "InProgress"].includes(state))
    return "warn"
  return "idle"
}

export const pill = (state: string) => h("span", { class: `pill ${tone(state)}` }, state)

const meter = (label: string, value: number | undefined, title?: string) => {
  if (value === undefined) return h("div", { class: "meter empty" }, h("span", { class: "meter-label" }, label), "—")
  const level = value >= 90 ? "bad" : value >= 75 ? "warn" : "good"
  const bar = h("div", { class: `bar ${level}` })
  bar.style.width = `${Math.min(100, Math.max(2, value))}%`
  return h(
    "div",
    { class: "meter", title: title ?? `${label} ${value.toFixed(1)}%` },
    h("span", { class: "meter-label" }, label),
    h("div", { class: "track" }, bar),
    h("span", { class: "meter-value" }, `${Math.round(value)}%`),
  )
}

export const meters = (stats: Stats | undefined) =>
  stats === undefined
    ? h("div", { class: "muted small" }, "no stats reported")
    : h(
        "div",
        { class: "meters" },
        meter("CPU", stats.cpu),
        meter("MEM", stats.mem, stats.memText),
        meter("DISK", stats.disk, stats.diskText),
      )

export const tagChips = (tags: ReadonlyArray<string>, names: ReadonlyMap<string, string>) =>
  h("span", { class: "tags" }, ...tags.map((t) => h("span", { class: "tag" }, names.get(t) ?? t)))

const ago = (ms: number, now = Date.now()): string => {
  if (ms <= 0) return ""
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s}s ago`
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`
  return new Date(ms).toISOString().slice(0, 10)
}

export const card = (label: string, value: string, detail: string, level = "") =>
  h(
    "div",
    { class: `card ${level}` },
    h("div", { class: "card-label" }, label),
    h("div", { class: "card-value" }, value),
    h("div", { class: "card-detail" }, detail),
  )

/** A time as the sandbox and the service both state it, in UTC: the host's clock may be far from theirs. */
export const at = (ms: number): string => {
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

export const alertList = (alerts: ReadonlyArray<Alert>) =>
  alerts.length === 0
    ? h("div", { class: "empty-note" }, "No open alerts.")
    : h(
        "ul",
        { class: "alerts" },
        ...alerts.map((a) =>
          h(
            "li",
            { class: `alert ${a.level}`, "data-testid": "alert", "data-level": a.level },
            h("span", { class: "dot" }),
            h("span", { class: "severity" }, a.level),
            h("strong", {}, a.name),
            h("span", {}, ` ${a.text}`),
            h(
              "span",
              { class: "muted small" },
              [a.kind, a.since === undefined ? "" : `since ${at(a.since)}`].filter((p) => p !== "").join(" · "),
            ),
          ),
        ),
      )

const statusOf = (u: Update) => (u.status === "Complete" ? (u.success ? "succeeded" : "failed") : u.status)

export const updateList = (updates: ReadonlyArray<Update>) =>
  updates.length === 0
    ? h("div", { class: "empty-note" }, "No updates yet.")
    : h(
        "ul",
        { class: "updates" },
        ...updates.map((u) =>
          h(
            "li",
            { "data-testid": "update" },
            h("div", { class: "update-head" }, h("span", { class: "mono" }, u.operation), pill(statusOf(u))),
            h(
              "div",
              { class: "muted small", title: u.time > 0 ? new Date(u.time).toISOString() : "" },
              [u.target, u.operator, ago(u.time)].filter((part) => part !== "").join(" · "),
            ),
          ),
        ),
      )

/** A select of the given options, "" for all. */
export const select = (
  label: string,
  value: string,
  options: ReadonlyArray<readonly [string, string]>,
  onChange: (value: string) => void,
) => {
  const el = h(
    "select",
    { "aria-label": label, "data-filter": label, onchange: (e) => onChange((e.target as HTMLSelectElement).value) },
    ...options.map(([v, text]) => h("option", { value: v, ...(v === value ? { selected: true } : {}) }, text)),
  ) as HTMLSelectElement
  el.value = value
  return h("label", { class: "filter" }, h("span", {}, label), el)
}

export const filterOptions = (rows: ReadonlyArray<Row>, names: ReadonlyMap<string, string>) => {
  const uniq = (values: ReadonlyArray<string>) => [...new Set(values.filter((v) => v !== ""))].sort()
  return {
    states: uniq(rows.map((r) => r.state)),
    servers: uniq(rows.filter((r) => r.kind === "server").map((r) => r.name)),
    tags: uniq(rows.flatMap((r) => r.tags)).map((t) => [t, names.get(t) ?? t] as const),
  }
}

export const anyFilter = (f: Filters) => f.kind !== "" || f.state !== "" || f.server !== "" || f.tag !== ""
