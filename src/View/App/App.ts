/**
 * The fleet view: an MCP App. It asks the server for what it shows through
 * the host (`tools/call` from the app), so every read and every action goes
 * through the server's policy, confirmation and audit as any other call.
 */
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps"
import { alertList, anyFilter, card, filterOptions, h, meters, pill, select, tagChips, updateList } from "./Dom.js"
import {
  type Action,
  type Alert,
  actionCall,
  alertsOf,
  detailsCall,
  type Filters,
  itemsOf,
  type Kind,
  matches,
  NO_FILTERS,
  type Row,
  runningRows,
  serverRows,
  type Update,
  updatesOf,
} from "./Model.js"

interface CallResult {
  readonly isError?: boolean
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: unknown
}

interface State {
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

// The services SVC_SERVICES names, written into the page by the server when it is read.
const SERVICES: ReadonlyArray<string> = JSON.parse(document.getElementById("svc-services")?.textContent || "[]")

const state: State = {
  rows: [],
  updates: [],
  alerts: [],
  tags: new Map(),
  filters: NO_FILTERS,
  service: SERVICES[0] ?? "",
  loading: true,
  pending: new Set(),
}

const app = new App({ name: "svc-mcp fleet", version: "1.0.0" }, {}, { autoResize: true })

const textOf = (result: CallResult) => (result.content ?? []).map((c) => c.text ?? "").join("\n")

/** One tool call through the host, with the service picked when there are several. */
const call = async (name: string, args: Record<string, unknown>): Promise<CallResult> => {
  const withService = SERVICES.length > 1 ? { ...args, service: state.service } : args
  return (await app.callServerTool({ name, arguments: withService })) as CallResult
}

const list = async (resource_type: string, fields?: ReadonlyArray<string>) => {
  const result = await call("svc_list", { resource_type, params: { limit: 0 }, ...(fields ? { fields } : {}) })
  if (result.isError) throw new Error(textOf(result))
  return itemsOf(result.structuredContent)
}

// A read asked for while one is under way is made once that one ends, not beside it.
let inFlight = false
let again = false

const load = async (): Promise<void> => {
  if (inFlight) {
    again = true
    return
  }
  inFlight = true
  state.loading = true
  render()
  try {
    const [servers, stacks, deployments, tags] = await Promise.all([
      list("server", ["id", "name", "tags", "info.state", "info.region", "info.stats", "info.alerting_thresholds"]),
      list("stack", ["id", "name", "tags", "info.state", "info.server_id", "info.server_name", "info.services"]),
      list("deployment", [
        "id",
        "name",
        "tags",
        "info.state",
        "info.server_id",
        "info.server_name",
        "info.update_available",
      ]),
      // Records, not the list's rows at a glance: the ids are what the other lists name.
      call("svc_list", { resource_type: "tag", params: {}, fields: ["_id", "name"] }),
    ])
    const serverList = serverRows(servers)
    const rows = [
      ...serverList,
      ...runningRows("stack", stacks, serverList),
      ...runningRows("deployment", deployments, serverList),
    ]
    const updates = await call("svc_list_detail", { list_type: "updates", params: {} })
    state.rows = rows
    state.updates = updates.isError ? [] : updatesOf(updates.structuredContent, rows)
    state.alerts = alertsOf(rows, state.updates)
    state.tags = new Map(
      itemsOf(tags.structuredContent).map((t) => {
        const id = (t._id as { $oid?: string } | undefined)?.$oid ?? String(t.name)
        return [id, String(t.name)] as const
      }),
    )
    state.error = undefined
    state.loadedAt = Date.now()
  } catch (error) {
    state.error = error instanceof Error ? error.message : String(error)
  }
  state.loading = false
  inFlight = false
  render()
  if (again) {
    again = false
    return load()
  }
}

const act = async (row: Row, action: Action) => {
  const key = `${row.kind}:${row.id}`
  state.pending.add(key)
  render()
  const request = actionCall(row, action)
  try {
    const result = await call(request.name, request.arguments)
    state.notice = result.isError
      ? { text: textOf(result), bad: true }
      : { text: `${action} ${row.name}: started`, bad: false }
  } catch (error) {
    state.notice = { text: error instanceof Error ? error.message : String(error), bad: true }
  }
  state.pending.delete(key)
  render()
  // The service answers at once and the change lands a moment later.
  setTimeout(() => void load(), 1500)
}

const details = async (row: Row) => {
  const request = detailsCall(row)
  const result = await call(request.name, request.arguments)
  state.details = { title: `${row.kind} ${row.name}`, text: textOf(result) }
  render()
}

const closeDetails = () => {
  state.details = undefined
  render()
}

const setFilter = (patch: Partial<Filters>) => {
  state.filters = { ...state.filters, ...patch }
  render()
}

const actions = (row: Row) => {
  const busy = state.pending.has(`${row.kind}:${row.id}`)
  const button = (label: string, onclick: () => void, kind = "") =>
    h("button", { class: `act ${kind}`, type: "button", "data-action": label, onclick, disabled: busy }, label)
  return h(
    "div",
    { class: "actions" },
    button("details", () => void details(row), "ghost"),
    row.kind !== "server" && button("deploy", () => void act(row, "deploy"), "primary"),
    row.kind !== "server" && button("restart", () => void act(row, "restart")),
    row.kind !== "server" && button("stop", () => void act(row, "stop"), "danger"),
  )
}

const serverTable = (rows: ReadonlyArray<Row>) =>
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
          h("td", {}, actions(r)),
        ),
      ),
    ),
  )

const workloadTable = (rows: ReadonlyArray<Row>) =>
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
          h("td", {}, actions(r)),
        ),
      ),
    ),
  )

const section = (title: string, count: string, body: Node) =>
  h("section", { class: "panel" }, h("h2", {}, title, h("span", { class: "count" }, count)), body)

const summary = () => {
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

const filters = () => {
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
      (v) => setFilter({ kind: v as Filters["kind"] }),
    ),
    select("State", f.state, [all("All states"), ...options.states.map((s) => [s, s] as const)], (v) =>
      setFilter({ state: v }),
    ),
    select("Server", f.server, [all("All servers"), ...options.servers.map((s) => [s, s] as const)], (v) =>
      setFilter({ server: v }),
    ),
    select("Tag", f.tag, [all("All tags"), ...options.tags], (v) => setFilter({ tag: v })),
    anyFilter(f) && h("button", { class: "act ghost", type: "button", onclick: () => setFilter(NO_FILTERS) }, "clear"),
  )
}

const header = () =>
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
      SERVICES.length > 1 &&
        select(
          "Service",
          state.service,
          SERVICES.map((s) => [s, s] as const),
          (v) => {
            state.service = v
            state.filters = NO_FILTERS
            void load()
          },
        ),
      h(
        "button",
        { class: "act", type: "button", "data-action": "refresh", onclick: () => void load(), disabled: state.loading },
        state.loading ? "loading…" : "refresh",
      ),
    ),
  )

const render = () => {
  const root = document.getElementById("root")
  if (root === null) return
  const shown = state.rows.filter((r) => matches(r, state.filters))
  const servers = shown.filter((r) => r.kind === "server")
  const workloads = shown.filter((r) => r.kind !== "server")
  const parts: ReadonlyArray<Node | false> = [
    header(),
    state.error !== undefined ? h("div", { class: "notice bad", role: "alert" }, state.error) : false,
    state.notice !== undefined
      ? h("div", { class: `notice ${state.notice.bad ? "bad" : "good"}`, role: "status" }, state.notice.text)
      : false,
    summary(),
    filters(),
    h(
      "div",
      { class: "columns" },
      h(
        "div",
        { class: "main" },
        servers.length > 0 && section("Servers", String(servers.length), serverTable(servers)),
        workloads.length > 0 && section("Stacks and deployments", String(workloads.length), workloadTable(workloads)),
        shown.length === 0 && !state.loading && h("div", { class: "empty-note" }, "Nothing matches these filters."),
      ),
      h(
        "aside",
        {},
        section("Open alerts", String(state.alerts.length), alertList(state.alerts)),
        section("Recent updates", String(state.updates.length), updateList(state.updates)),
      ),
    ),
    state.details !== undefined
      ? h(
          "div",
          { class: "details", role: "dialog" },
          h(
            "div",
            { class: "details-head" },
            h("strong", {}, state.details.title),
            h("button", { class: "act ghost", type: "button", onclick: closeDetails }, "close"),
          ),
          h("pre", {}, state.details.text),
        )
      : false,
  ]
  root.replaceChildren(...parts.filter((part): part is Node => part !== false))
}

const applyContext = (context: McpUiHostContext | undefined) => {
  if (context?.theme !== undefined) applyDocumentTheme(context.theme)
  if (context?.styles?.variables !== undefined) applyHostStyleVariables(context.styles.variables)
}

app.onhostcontextchanged = (context) => applyContext(context)
// The host's call that opened the view (svc_summary) says nothing the view needs; a new one refreshes.
app.ontoolresult = () => void load()
app.onteardown = async () => ({})

render()
await app.connect()
applyContext(app.getHostContext())
await load()
