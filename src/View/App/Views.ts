/**
 * The fleet view's parts, each drawn from the state alone: the page (App.ts)
 * draws again only the parts a change touches. Handlers go back to the page.
 */
import { alertList, anyFilter, card, filterOptions, h, meters, pill, select, tagChips, updateList } from "./Dom.js"
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
export type Part = "header" | "error" | "notice" | "summary" | "filters" | "main" | "aside" | "details"

const actions = (state: State, on: Handlers, row: Row) => {
  const busy = state.pending.has(`${row.kind}:${row.id}`)
  const button = (label: string, onclick: () => void, kind = "") =>
    h("button", { class: `act ${kind}`, type: "button", "data-action": label, onclick, disabled: busy }, label)
  return h(
    "div",
    { class: "actions" },
    button("details", () => on.details(row), "ghost"),
    row.kind !== "server" && button("deploy", () => on.act(row, "deploy"), "primary"),
    row.kind !== "server" && button("restart", () => on.act(row, "restart")),
    row.kind !== "server" && button("stop", () => on.act(row, "stop"), "danger"),
  )
}

const serverTable = (state: State, on: Handlers, rows: ReadonlyArray<Row>) =>
  h(
    "table",
    { class: "grid" },
    h("thead", {}, h("tr", {}, ...["Server", "State", "Load", "Tags", ""].map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h(
          "tr",
          { "data-kind": r.kind, "data-name": r.name },
          h("td", {}, h("div", { class: "name" }, r.name), h("div", { class: "muted small" }, r.region ?? "")),
          h("td", {}, pill(r.state)),
          h("td", { class: "load" }, meters(r.stats)),
          h("td", {}, tagChips(r.tags, state.tags)),
          h("td", {}, actions(state, on, r)),
        ),
      ),
    ),
  )

const workloadTable = (state: State, on: Handlers, rows: ReadonlyArray<Row>) =>
  h(
    "table",
    { class: "grid" },
    h(
      "thead",
      {},
      h("tr", {}, ...["Name", "Kind", "State", "Server", "Update", "Tags", ""].map((c) => h("th", {}, c))),
    ),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h(
          "tr",
          { "data-kind": r.kind, "data-name": r.name },
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
        ),
      ),
    ),
  )

const section = (title: string, count: string, body: Node) =>
  h("section", { class: "panel" }, h("h2", {}, title, h("span", { class: "count" }, count)), body)

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
      [all("All kinds"), ["server", "Servers"], ["stack", "Stacks"], ["deployment", "Deployments"]],
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

const main = (state: State, on: Handlers) => {
  const shown = state.rows.filter((r) => matches(r, state.filters))
  const servers = shown.filter((r) => r.kind === "server")
  const workloads = shown.filter((r) => r.kind !== "server")
  return h(
    "div",
    { class: "main" },
    servers.length > 0 && section("Servers", String(servers.length), serverTable(state, on, servers)),
    workloads.length > 0 &&
      section("Stacks and deployments", String(workloads.length), workloadTable(state, on, workloads)),
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
    filters,
    main,
    aside: (state) =>
      h(
        "aside",
        {},
        section("Open alerts", String(state.alerts.length), alertList(state.alerts)),
        section("Recent updates", String(state.updates.length), updateList(state.updates)),
      ),
    details,
  }
