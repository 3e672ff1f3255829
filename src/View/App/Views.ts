/**
 * The fleet view's parts, each drawn from the state alone: the page (App.ts)
 * draws again only the parts a change touches. Handlers go back to the page.
 */
import { ordered } from "./Attention.js"
import { alertList, anyFilter, at, card, filterOptions, h, meters, pill, select, tagChips, updateList } from "./Dom.js"
import {
  type Action,
  type Alert,
  type Filters,
  type Kind,
  matches,
  NO_FILTERS,
  type Row,
  type Update,
} from "./Model.js"

/** What the page holds: what the server last answered, what the user picked, what is under way. */
export interface State {
  rows: ReadonlyArray<Row>
  updates: ReadonlyArray<Update>
  alerts: ReadonlyArray<Alert>
  /** Where the alerts come from: the service's own list, or read from the states it reports (Model.alertsOf). */
  alertsFrom: "service" | "states"
  tags: ReadonlyMap<string, string>
  filters: Filters
  service: string
  loading: boolean
  loadedAt?: number
  error?: string | undefined
  notice?: { readonly text: string; readonly bad: boolean }
  details?: { readonly title: string; readonly text: string } | undefined
  pending: Set<string>
}

/** What the parts' controls ask of the page. */
export interface Handlers {
  readonly details: (row: Row) => void
  readonly act: (row: Row, action: Action) => void
  readonly setFilter: (patch: Partial<Filters>) => void
  readonly closeDetails: () => void
  readonly refresh: () => void
  readonly pickService: (service: string) => void
}

/** The parts of the page, in its order; the main list and the aside stand side by side. */
export type Part = "header" | "error" | "notice" | "summary" | "attention" | "filters" | "main" | "aside" | "details"

const actions = (state: State, on: Handlers, row: Row) => {
  const busy = state.pending.has(`${row.kind}:${row.id}`)
  const acts = row.kind === "stack" || row.kind === "deployment"
  const button = (label: string, onclick: () => void, kind = "") =>
    h("button", { class: `act ${kind}`, type: "button", "data-action": label, onclick, disabled: busy }, label)
  return h(
    "div",
    { class: "actions" },
    button("details", () => on.details(row), "ghost"),
    acts && button("deploy", () => on.act(row, "deploy"), "primary"),
    acts && button("restart", () => on.act(row, "restart")),
    acts && button("stop", () => on.act(row, "stop"), "danger"),
  )
}

/** A table: its headings, then a line a row, marked with the row's kind and name, of the cells `cells` makes. */
const grid = <T>(
  headings: ReadonlyArray<string>,
  items: ReadonlyArray<T>,
  rowOf: (item: T) => Row,
  cells: (item: T) => ReadonlyArray<HTMLElement>,
  marks: Record<string, string> = {},
) =>
  h(
    "table",
    { class: "grid" },
    h("thead", {}, h("tr", {}, ...headings.map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...items.map((item) => {
        const r = rowOf(item)
        return h("tr", { "data-kind": r.kind, "data-name": r.name, ...marks }, ...cells(item))
      }),
    ),
  )

const itself = (row: Row) => row

const serverTable = (state: State, on: Handlers, rows: ReadonlyArray<Row>) =>
  grid(["Server", "State", "Load", "Tags", ""], rows, itself, (r) => [
    h("td", {}, h("div", { class: "name" }, r.name), h("div", { class: "muted small" }, r.region ?? "")),
    h("td", {}, pill(r.state)),
    h("td", { class: "load" }, meters(r.stats)),
    h("td", {}, tagChips(r.tags, state.tags)),
    h("td", {}, actions(state, on, r)),
  ])

const workloadTable = (state: State, on: Handlers, rows: ReadonlyArray<Row>) =>
  grid(["Name", "Kind", "State", "Server", "Update", "Tags", ""], rows, itself, (r) => [
    h("td", {}, h("div", { class: "name" }, r.name)),
    h("td", { class: "muted" }, r.kind),
    h("td", {}, pill(r.state)),
    h("td", {}, r.server || "—"),
    h(
      "td",
      {},
      r.updateAvailable
        ? h("span", { class: "badge" }, "update available")
        : h("span", { class: "muted" }, "up to date"),
    ),
    h("td", {}, tagChips(r.tags, state.tags)),
    h("td", {}, actions(state, on, r)),
  ])

const buildTable = (state: State, on: Handlers, rows: ReadonlyArray<Row>) =>
  grid(["Build", "State", "Last built", "Tags", ""], rows, itself, (r) => [
    h("td", {}, h("div", { class: "name" }, r.name)),
    h("td", {}, pill(r.state)),
    h("td", { class: "muted" }, r.lastSeen === undefined ? "never" : at(r.lastSeen)),
    h("td", {}, tagChips(r.tags, state.tags)),
    h("td", {}, actions(state, on, r)),
  ])

/** What is unhealthy, of every kind, each with why. */
const unhealthyTable = (state: State, on: Handlers, rows: ReturnType<typeof ordered>["unhealthy"]) =>
  grid(
    ["Name", "Kind", "State", "Why", "Server", ""],
    rows,
    (u) => u.row,
    ({ row: r, problem }) => [
      h("td", {}, h("div", { class: "name" }, r.name)),
      h("td", { class: "muted" }, r.kind),
      h("td", {}, pill(r.state)),
      h("td", {}, problem),
      h("td", {}, r.server || "—"),
      h("td", {}, actions(state, on, r)),
    ],
    { "data-unhealthy": "" },
  )

const section = (title: string, count: string, body: Node, note = "", testid = "") =>
  h(
    "section",
    { class: "panel", ...(testid === "" ? {} : { "data-testid": testid }) },
    h("h2", {}, title, h("span", { class: "count" }, count), note !== "" && h("span", { class: "note" }, note)),
    body,
  )

/** At the top, before any filter: the open alerts, then what is unhealthy. */
const attention = (state: State, on: Handlers) => {
  const { alerts, unhealthy } = ordered(state.rows, state.alerts)
  const from = state.alertsFrom === "service" ? "as the service lists them" : "read from the states reported"
  return h(
    "div",
    { class: "attention" },
    section("Open alerts", String(alerts.length), alertList(alerts), from, "open-alerts"),
    unhealthy.length > 0 &&
      section("Unhealthy", String(unhealthy.length), unhealthyTable(state, on, unhealthy), "", "unhealthy"),
  )
}

const summary = (state: State) => {
  const of = (kind: Kind) => state.rows.filter((r) => r.kind === kind)
  const servers = of("server")
  const stacks = of("stack")
  const deployments = of("deployment")
  const good = (rows: ReadonlyArray<Row>, ok: string) => rows.filter((r) => r.state === ok).length
  const updates = state.rows.filter((r) => r.updateAvailable).length
  const critical = state.alerts.filter((a) => a.level === "critical").length
  return h(
    "div",
    { class: "cards" },
    card(
      "Servers",
      `${good(servers, "Ok")}/${servers.length}`,
      "Ok",
      good(servers, "Ok") < servers.length ? "warn" : "",
    ),
    card("Stacks", `${good(stacks, "running")}/${stacks.length}`, "running"),
    card("Deployments", `${good(deployments, "running")}/${deployments.length}`, "running"),
    card("Updates", String(updates), "available", updates > 0 ? "info" : ""),
    card(
      "Alerts",
      String(state.alerts.length),
      critical > 0 ? `${critical} critical` : "open",
      state.alerts.length > 0 ? (critical > 0 ? "bad" : "warn") : "",
    ),
  )
}

const filters = (state: State, on: Handlers) => {
  const f = state.filters
  const options = filterOptions(state.rows, state.tags)
  const all = (label: string) => ["", label] as const
  return h(
    "div",
    { class: "filters" },
    select(
      "Kind",
      f.kind,
      [
        all("All kinds"),
        ["server", "Servers"],
        ["stack", "Stacks"],
        ["deployment", "Deployments"],
        ["build", "Builds"],
      ],
      (v) => on.setFilter({ kind: v as Filters["kind"] }),
    ),
    select("State", f.state, [all("All states"), ...options.states.map((s) => [s, s] as const)], (v) =>
      on.setFilter({ state: v }),
    ),
    select("Server", f.server, [all("All servers"), ...options.servers.map((s) => [s, s] as const)], (v) =>
      on.setFilter({ server: v }),
    ),
    select("Tag", f.tag, [all("All tags"), ...options.tags], (v) => on.setFilter({ tag: v })),
    anyFilter(f) &&
      h("button", { class: "act ghost", type: "button", onclick: () => on.setFilter(NO_FILTERS) }, "clear"),
  )
}

const header = (state: State, on: Handlers, services: ReadonlyArray<string>) =>
  h(
    "header",
    {},
    h(
      "div",
      { class: "title" },
      h("h1", {}, "Fleet"),
      h(
        "span",
        { class: "muted small" },
        state.loadedAt ? `as of ${new Date(state.loadedAt).toLocaleTimeString()}` : "",
      ),
    ),
    h(
      "div",
      { class: "tools" },
      services.length > 1 &&
        select(
          "Service",
          state.service,
          services.map((s) => [s, s] as const),
          on.pickService,
        ),
      h(
        "button",
        { class: "act", type: "button", "data-action": "refresh", onclick: on.refresh, disabled: state.loading },
        state.loading ? "loading…" : "refresh",
      ),
    ),
  )

/** Everything not unhealthy, as the filters pick. */
const main = (state: State, on: Handlers) => {
  const shown = ordered(state.rows, state.alerts).rest.filter((r) => matches(r, state.filters))
  const servers = shown.filter((r) => r.kind === "server")
  const workloads = shown.filter((r) => r.kind === "stack" || r.kind === "deployment")
  const builds = shown.filter((r) => r.kind === "build")
  return h(
    "div",
    { class: "main" },
    servers.length > 0 && section("Servers", String(servers.length), serverTable(state, on, servers)),
    workloads.length > 0 &&
      section("Stacks and deployments", String(workloads.length), workloadTable(state, on, workloads)),
    builds.length > 0 && section("Builds", String(builds.length), buildTable(state, on, builds)),
    shown.length === 0 && !state.loading && h("div", { class: "empty-note" }, "Nothing matches these filters."),
  )
}

const details = (state: State, on: Handlers) =>
  state.details !== undefined &&
  h(
    "div",
    { class: "details", role: "dialog" },
    h(
      "div",
      { class: "details-head" },
      h("strong", {}, state.details.title),
      h("button", { class: "act ghost", type: "button", onclick: on.closeDetails }, "close"),
    ),
    h("pre", {}, state.details.text),
  )

/** Each part drawn from the state: a node, or nothing to show. */
export const PARTS: Record<Part, (state: State, on: Handlers, services: ReadonlyArray<string>) => HTMLElement | false> =
  {
    header,
    error: (state) => state.error !== undefined && h("div", { class: "notice bad", role: "alert" }, state.error),
    notice: (state) =>
      state.notice !== undefined &&
      h("div", { class: `notice ${state.notice.bad ? "bad" : "good"}`, role: "status" }, state.notice.text),
    summary,
    attention,
    filters,
    main,
    aside: (state) =>
      h("aside", {}, section("Recent updates", String(state.updates.length), updateList(state.updates))),
    details,
  }
