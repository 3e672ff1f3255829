/**
 * The fleet view: an MCP App. It asks the server for what it shows through
 * the host (`tools/call` from the app), so every read and every action goes
 * through the server's policy, confirmation and audit as any other call.
 *
 * One page instance holds the state; a change draws again only the parts of
 * the page it touches (Views.ts), each in its place.
 */
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps"
import { serviceAlertsOf } from "./Attention.js"
import { h } from "./Dom.js"
import {
  type Action,
  actionCall,
  alertsOf,
  buildRows,
  detailsCall,
  type Filters,
  itemsOf,
  NO_FILTERS,
  type Row,
  runningRows,
  serverRows,
  updatesOf,
} from "./Model.js"
import { type Handlers, PARTS, type Part, type State } from "./Views.js"

interface CallResult {
  readonly isError?: boolean
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: unknown
}

const textOf = (result: CallResult) => (result.content ?? []).map((c) => c.text ?? "").join("\n")

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** What a load changes: everything the server answers, and whether one is under way. */
const LOADED: ReadonlyArray<Part> = ["header", "error", "summary", "attention", "filters", "main", "aside"]

class FleetPage implements Handlers {
  private readonly state: State
  /** Each part's node on the page (an empty comment where it shows nothing), replaced when it is drawn again. */
  private readonly placed = new Map<Part, ChildNode>()
  // A read asked for while one is under way is made once that one ends, not beside it.
  private inFlight = false
  private again = false
  /** Whether the server's tools reach the service's alerts (SVC_REACH=all); refused once, not asked again. */
  private alertsInReach = true

  constructor(
    private readonly app: App,
    /** The services SVC_SERVICES names, written into the page by the server when it is read. */
    private readonly services: ReadonlyArray<string>,
  ) {
    this.state = {
      rows: [],
      updates: [],
      alerts: [],
      alertsFrom: "states",
      tags: new Map(),
      filters: NO_FILTERS,
      service: services[0] ?? "",
      loading: true,
      pending: new Set(),
    }
  }

  /** The page's frame, each part in its place, drawn once. */
  mount(root: HTMLElement): void {
    const place = (part: Part) => {
      const node = document.createComment(part)
      this.placed.set(part, node)
      return node
    }
    root.replaceChildren(
      ...(["header", "error", "notice", "summary", "attention", "filters"] as const).map(place),
      h("div", { class: "columns" }, place("main"), place("aside")),
      place("details"),
    )
    this.draw(["header", "error", "notice", "summary", "attention", "filters", "main", "aside", "details"])
  }

  private draw(parts: ReadonlyArray<Part>): void {
    for (const part of parts) {
      const node = PARTS[part](this.state, this, this.services) || document.createComment(part)
      this.placed.get(part)?.replaceWith(node)
      this.placed.set(part, node)
    }
  }

  /** One tool call through the host, with the service picked when there are several. */
  private async call(name: string, args: Record<string, unknown>): Promise<CallResult> {
    const withService = this.services.length > 1 ? { ...args, service: this.state.service } : args
    return (await this.app.callServerTool({ name, arguments: withService })) as CallResult
  }

  private async list(resource_type: string, fields?: ReadonlyArray<string>) {
    const result = await this.call("svc_list", { resource_type, params: { limit: 0 }, ...(fields ? { fields } : {}) })
    if (result.isError) throw new Error(textOf(result))
    return itemsOf(result.structuredContent)
  }

  /**
   * The service's open alerts, where the tools reach them (`svc_list` of `alert`, SVC_REACH=all);
   * undefined where they do not, and the view reads the alerts from the states instead.
   */
  private async openAlerts(): Promise<unknown> {
    if (!this.alertsInReach) return undefined
    const args = { resource_type: "alert", params: { query: { resolved: false } }, fields: ["*"] }
    const result = await this.call("svc_list", args)
    if (!result.isError) return result.structuredContent
    const error = (result.structuredContent as { error?: { kind?: string } } | undefined)?.error
    if (error?.kind === "invalid_arguments") this.alertsInReach = false
    return undefined
  }

  /** The fleet read again: its lists, the recent updates, the open alerts, the tags' names. */
  private async fetch(): Promise<void> {
    const [servers, stacks, deployments, builds, tags, open] = await Promise.all([
      this.list("server", [
        "id",
        "name",
        "tags",
        "info.state",
        "info.region",
        "info.stats",
        "info.alerting_thresholds",
      ]),
      this.list("stack", ["id", "name", "tags", "info.state", "info.server_id", "info.server_name", "info.services"]),
      this.list("deployment", [
        "id",
        "name",
        "tags",
        "info.state",
        "info.server_id",
        "info.server_name",
        "info.update_available",
      ]),
      this.list("build", ["id", "name", "tags", "info.state", "info.last_built_at"]),
      // Records, not the list's rows at a glance: the ids are what the other lists name.
      this.call("svc_list", { resource_type: "tag", params: {}, fields: ["_id", "name"] }),
      this.openAlerts().catch(() => undefined),
    ])
    const serverList = serverRows(servers)
    const rows = [
      ...serverList,
      ...runningRows("stack", stacks, serverList),
      ...runningRows("deployment", deployments, serverList),
      ...buildRows(builds),
    ]
    const updates = await this.call("svc_list_detail", { list_type: "updates", params: {} })
    this.state.rows = rows
    this.state.updates = updates.isError ? [] : updatesOf(updates.structuredContent, rows)
    this.state.alertsFrom = open === undefined ? "states" : "service"
    this.state.alerts = open === undefined ? alertsOf(rows, this.state.updates) : serviceAlertsOf(open, rows)
    this.state.tags = new Map(
      itemsOf(tags.structuredContent).map((t) => {
        const id = (t._id as { $oid?: string } | undefined)?.$oid ?? String(t.name)
        return [id, String(t.name)] as const
      }),
    )
  }

  async load(): Promise<void> {
    if (this.inFlight) {
      this.again = true
      return
    }
    this.inFlight = true
    this.state.loading = true
    this.draw(["header", "main"])
    try {
      await this.fetch()
      this.state.error = undefined
      this.state.loadedAt = Date.now()
    } catch (error) {
      this.state.error = messageOf(error)
    }
    this.state.loading = false
    this.inFlight = false
    this.draw(LOADED)
    if (this.again) {
      this.again = false
      return this.load()
    }
  }

  readonly act = (row: Row, action: Action): void => void this.acting(row, action)

  private async acting(row: Row, action: Action): Promise<void> {
    const key = `${row.kind}:${row.id}`
    this.state.pending.add(key)
    this.draw(["main"])
    const request = actionCall(row, action)
    try {
      const result = await this.call(request.name, request.arguments)
      this.state.notice = result.isError
        ? { text: textOf(result), bad: true }
        : { text: `${action} ${row.name}: started`, bad: false }
    } catch (error) {
      this.state.notice = { text: messageOf(error), bad: true }
    }
    this.state.pending.delete(key)
    this.draw(["notice", "main"])
    // The service answers at once and the change lands a moment later.
    setTimeout(() => void this.load(), 1500)
  }

  readonly details = (row: Row): void => {
    const request = detailsCall(row)
    void this.call(request.name, request.arguments).then((result) => {
      this.state.details = { title: `${row.kind} ${row.name}`, text: textOf(result) }
      this.draw(["details"])
    })
  }

  readonly closeDetails = (): void => {
    this.state.details = undefined
    this.draw(["details"])
  }

  readonly setFilter = (patch: Partial<Filters>): void => {
    this.state.filters = { ...this.state.filters, ...patch }
    this.draw(["filters", "main"])
  }

  readonly refresh = (): void => void this.load()

  readonly pickService = (service: string): void => {
    this.state.service = service
    this.state.filters = NO_FILTERS
    this.draw(["filters", "main"])
    void this.load()
  }
}

const applyContext = (context: McpUiHostContext | undefined) => {
  if (context?.theme !== undefined) applyDocumentTheme(context.theme)
  if (context?.styles?.variables !== undefined) applyHostStyleVariables(context.styles.variables)
}

const app = new App({ name: "svc-mcp fleet", version: "1.0.0" }, {}, { autoResize: true })
const page = new FleetPage(app, JSON.parse(document.getElementById("svc-services")?.textContent || "[]"))

app.onhostcontextchanged = (context) => applyContext(context)
// The host's call that opened the view (svc_summary) says nothing the view needs; a new one refreshes.
app.ontoolresult = () => void page.load()
app.onteardown = async () => ({})

const root = document.getElementById("root")
if (root !== null) page.mount(root)
await app.connect()
applyContext(app.getHostContext())
await page.load()
