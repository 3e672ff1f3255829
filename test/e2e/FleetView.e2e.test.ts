/**
 * The fleet view in a real browser: Debian's chromium, driven by playwright-core,
 * shows the view through a small host built on the Apps SDK's app-bridge
 * (support/fleet-host.mjs). The host reads the resource from the built server,
 * running against the sandbox over HTTP, and passes the view's tool calls on to
 * it, so that each goes through the server's policy and confirmation as any call.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { type Browser, chromium, type FrameLocator, type Page } from "playwright-core"
import { ensureBinary } from "../support/Debian.js"
import * as Png from "../support/Png.js"
import * as Servers from "../support/Servers.js"
import { ENTRY } from "../support/Spawn.js"

const ROOT = Path.resolve(Path.dirname(import.meta.dirname), "..")

// Where the screenshots go: a directory of this run's own, gone after it; the docs' pictures
// (docs/fleet-*.png) are taken by `npm run pictures` (scripts/pictures.mjs), which names docs/ here.
const ASKED = process.env.SVC_MCP_PICTURES_DIR
const PICTURES = ASKED ?? Fs.mkdtempSync(Path.join(Os.tmpdir(), "svc-mcp-fleet-"))

// The sandbox's estate (src/Sandbox/Estates/Seed.ts).
const SEEDED = {
  server: ["prod-01", "prod-02", "staging-01"],
  stack: ["web", "monitoring", "staging-web"],
  deployment: ["api", "docs", "legacy-cron"],
} as const

interface Served {
  readonly origin: string
  readonly stderr: () => string
  /** The JSON-RPC methods the host sent to the server, in order. */
  readonly methods: Array<string>
  readonly close: () => Promise<void>
}

/** The built server with the sandbox over HTTP, and before it the host's own origin: its page, its script, /mcp. */
const serve = async (
  env: Record<string, string>,
  hostScript: string,
  args: ReadonlyArray<string> = [],
): Promise<Served> => {
  const child = ChildProcess.spawn(process.execPath, [ENTRY, "--sandbox", ...args], {
    env: { PATH: process.env.PATH ?? "", SVC_MCP_HTTP_PORT: "0", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  })
  let stderr = ""
  const mcp = await new Promise<URL>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
      const found = /over HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)
      if (found?.[1] !== undefined) resolve(new URL(found[1]))
    })
    child.on("exit", () => reject(new Error(`the server exited: ${stderr}`)))
  })
  const methods: Array<string> = []
  const page =
    '<!doctype html><html><head><meta charset="utf-8"><title>host</title><style>body{margin:0;background:#888}iframe{border:0;width:100%;height:900px;display:block}</style></head><body><script type="module" src="/host.js"></script></body></html>'
  const proxy = Http.createServer((request, response) => {
    if (request.url?.startsWith("/mcp")) {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = Buffer.concat(chunks)
        try {
          const message = JSON.parse(body.toString("utf8")) as { method?: string }
          if (typeof message.method === "string") methods.push(message.method)
        } catch {}
        const headers = { ...request.headers, host: mcp.host }
        const forwarded = Http.request(mcp, { method: request.method, headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(response)
        })
        forwarded.on("error", () => response.destroy())
        forwarded.end(body)
      })
      return
    }
    const [type, text] = request.url === "/host.js" ? ["text/javascript", hostScript] : ["text/html", page]
    response.writeHead(200, { "content-type": type }).end(text)
  })
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  const { port } = proxy.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    methods,
    close: async () => {
      await Servers.close(proxy)
      child.kill("SIGKILL")
    },
  }
}

let browser: Browser
let hostScript: string
const cleanups: Array<() => Promise<void>> = []

beforeAll(async () => {
  const executablePath = await ensureBinary("chromium", "chromium")
  const built = await esbuild.build({
    entryPoints: [Path.join(ROOT, "test/support/fleet-host.mjs")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
  })
  hostScript = built.outputFiles[0]?.text ?? ""
  browser = await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  })
}, 180_000)

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  await browser?.close()
  if (ASKED === undefined) Fs.rmSync(PICTURES, { recursive: true, force: true })
})

const open = async (served: Served, theme: "light" | "dark" = "light") => {
  const page = await browser.newPage({ viewport: { width: 1360, height: 1200 }, deviceScaleFactor: 1 })
  cleanups.push(() => page.close())
  const outside: Array<string> = []
  page.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith(served.origin) && !url.startsWith("about:") && !url.startsWith("data:")) outside.push(url)
  })
  const errors: Array<string> = []
  page.on("pageerror", (error) => errors.push(error.message))
  await page.goto(`${served.origin}/?theme=${theme}`)
  const view = page.frameLocator("iframe")
  await view.locator('tr[data-kind="server"]').first().waitFor({ timeout: 15_000 })
  return { page, view, outside, errors }
}

/** The view as the host shows it, its frame whole (sized to the view's content by its size notifications). */
const shoot = async (page: Page, file: string) => {
  await page.waitForTimeout(300)
  const box = await page.locator("iframe").boundingBox()
  if (box === null) throw new Error("the view's frame is not shown")
  await page.screenshot({ path: Path.join(PICTURES, file), clip: box })
}

const row = (view: FrameLocator, kind: string, name: string) =>
  view.locator(`tr[data-kind="${kind}"][data-name="${name}"]`)

const hostState = (page: Page) =>
  page.evaluate(() => {
    const { calls, asked, resource } = (globalThis as unknown as { host: Record<string, unknown> }).host
    return JSON.parse(JSON.stringify({ calls, asked, resource })) as {
      calls: Array<{ name: string; arguments: Record<string, unknown> }>
      asked: Array<string>
      resource: { uri: string; mimeType: string; meta: unknown; bytes: number }
    }
  })

describe("the fleet view in chromium", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({}, hostScript)
    cleanups.push(served.close)
  }, 30_000)

  it("shows a row for every seeded server, stack and deployment, its load, alerts and updates, loading nothing from outside", async () => {
    const { page, view, outside, errors } = await open(served)
    for (const [kind, names] of Object.entries(SEEDED)) {
      for (const name of names) await expect(row(view, kind, name).count()).resolves.toBe(1)
    }
    // Load as the sandbox's servers report it; prod-02's memory (87%) and disk (80%) are past its warnings.
    await expect(row(view, "server", "prod-02").locator(".meter-value").allTextContents()).resolves.toEqual([
      "71%",
      "87%",
      "80%",
    ])
    const alerts = await view.locator('[data-testid="alert"]').allTextContents()
    expect(alerts.some((a) => a.includes("prod-02") && a.includes("memory at 87%"))).toBe(true)
    expect(alerts.some((a) => a.includes("prod-02") && a.includes("disk at 80%"))).toBe(true)
    await expect(row(view, "stack", "staging-web").locator(".pill").textContent()).resolves.toBe("stopped")
    await expect(row(view, "deployment", "api").locator("td").nth(3).textContent()).resolves.toBe("prod-01")

    const { calls, resource } = await hostState(page)
    expect(resource).toMatchObject({
      uri: "ui://svc-mcp/fleet",
      mimeType: "text/html;profile=mcp-app",
      meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } },
    })
    // What the view read, each through the host as a tools/call.
    expect(calls.map((c) => `${c.name} ${c.arguments.resource_type ?? c.arguments.list_type}`)).toEqual(
      expect.arrayContaining(["svc_list server", "svc_list stack", "svc_list deployment", "svc_list_detail updates"]),
    )
    expect(served.methods).toContain("resources/read")
    expect(outside).toEqual([])
    expect(errors).toEqual([])

    // Filters: a kind, then a server. A filter draws the list again, and only what it touches:
    // the header, the cards and the aside are the nodes they were.
    const parts = "header, .cards, aside, .main"
    const mark = () => view.locator(parts).evaluateAll((nodes) => nodes.map((n) => n.setAttribute("data-seen", "")))
    const unchanged = () =>
      view
        .locator("[data-seen]")
        .evaluateAll((nodes) => nodes.map((n) => (n.tagName === "DIV" ? `.${n.className}` : n.tagName.toLowerCase())))
    await mark()
    await view.locator('select[data-filter="Kind"]').selectOption("stack")
    await expect(view.locator("tr[data-kind]").count()).resolves.toBe(3)
    await expect(unchanged()).resolves.toEqual(["header", ".cards", "aside"])
    await view.locator('select[data-filter="Kind"]').selectOption("")
    await view.locator('select[data-filter="Server"]').selectOption("prod-01")
    const names = await view
      .locator("tr[data-kind]")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-name")))
    expect(names.sort()).toEqual(["api", "prod-01", "web"])
    await view.locator('select[data-filter="Server"]').selectOption("")
    await view.locator('select[data-filter="Tag"]').selectOption({ label: "staging" })
    const staged = await view
      .locator("tr[data-kind]")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-name")))
    expect(staged.sort()).toEqual(["legacy-cron", "staging-01", "staging-web"])
    await view.locator('select[data-filter="Tag"]').selectOption("")
  }, 60_000)

  it("deploys a stack through the host: its tools/call reaches the server, and the stack comes up", async () => {
    const { page, view } = await open(served)
    await row(view, "stack", "staging-web").locator('button[data-action="deploy"]').click()
    await view.locator(".notice.good").waitFor()
    const { calls } = await hostState(page)
    expect(calls).toContainEqual(
      expect.objectContaining({
        name: "svc_execute",
        arguments: { operation: "deploy_stack", params: { stack: "staging-web" } },
      }),
    )
    expect(served.methods.filter((m) => m === "tools/call").length).toBeGreaterThan(calls.length - 1)
    // The sandbox completes a deploy about a second later; the view reads the fleet again after it.
    await row(view, "stack", "staging-web").locator('.pill:text-is("running")').waitFor({ timeout: 10_000 })
    const updates = await view.locator('[data-testid="update"]').allTextContents()
    expect(updates.some((u) => u.startsWith("DeployStack") && u.includes("staging-web"))).toBe(true)

    // The host's theme, light and then dark.
    await expect(view.locator("html").getAttribute("data-theme")).resolves.toBe("light")
    await shoot(page, "fleet-light.png")
    await page.evaluate(() => (globalThis as unknown as { setTheme: (t: string) => void }).setTheme("dark"))
    await view.locator('html[data-theme="dark"]').waitFor()
    await shoot(page, "fleet-dark.png")
    const background = await view
      .locator("body")
      .evaluate(
        (b) =>
          (globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }).getComputedStyle(
            b,
          ).backgroundColor,
      )
    expect(background).toBe("rgb(15, 19, 24)")
  }, 30_000)
})

describe("the fleet view with SVC_CONFIRM", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ SVC_CONFIRM: "svc_execute:deploy*,svc_execute:stop_*" }, hostScript)
    cleanups.push(served.close)
  }, 30_000)

  it("asks the question first: declined, nothing is sent; accepted, the deploy goes through", async () => {
    const { page, view } = await open(served)
    await page.evaluate(() => {
      ;(globalThis as unknown as { host: { answer: string } }).host.answer = "decline"
    })
    await row(view, "deployment", "legacy-cron").locator('button[data-action="deploy"]').click()
    await view.locator(".notice.bad").waitFor()
    const declined = await hostState(page)
    expect(declined.asked, (await view.locator(".notice.bad").textContent()) ?? "").toHaveLength(1)
    expect(declined.asked[0]).toMatch(/legacy-cron/)
    await expect(view.locator(".notice.bad").textContent()).resolves.toMatch(/declined|not confirmed|not sent/i)

    await page.evaluate(() => {
      ;(globalThis as unknown as { host: { answer: string } }).host.answer = "accept"
    })
    await row(view, "deployment", "legacy-cron").locator('button[data-action="deploy"]').click()
    await view.locator(".notice.good").waitFor()
    const accepted = await hostState(page)
    expect(accepted.asked).toHaveLength(2)
    await row(view, "deployment", "legacy-cron").locator('.pill:text-is("running")').waitFor({ timeout: 10_000 })
    // A read is not among the patterns: it was never asked about.
    expect(accepted.asked.every((q) => /deploy/i.test(q))).toBe(true)
  }, 30_000)
})

describe("the fleet view among several services", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ SVC_SERVICES: "east,west" }, hostScript)
    cleanups.push(served.close)
  }, 30_000)

  it("picks the service: each call names it, and the view reads the one picked", async () => {
    const { page, view } = await open(served)
    const picker = view.locator('select[data-filter="Service"]')
    await expect(picker.locator("option").allTextContents()).resolves.toEqual(["east", "west"])
    await picker.selectOption("west")
    await view.locator('button[data-action="refresh"]:text-is("refresh")').waitFor()
    const { calls } = await hostState(page)
    expect(calls.filter((c) => c.arguments.service === "west").length).toBeGreaterThanOrEqual(4)
    expect(calls.every((c) => c.arguments.service === "east" || c.arguments.service === "west")).toBe(true)
    for (const name of SEEDED.server) await expect(row(view, "server", name).count()).resolves.toBe(1)
  }, 30_000)
})

it("the built page is where the server reads it from", () => {
  expect(Fs.existsSync(Path.join(ROOT, "dist/fleet-view.js"))).toBe(true)
})

// The view's light colours (src/View/App/fleet.css): a critical alert's background, a healthy state's pill.
const BAD_BG = [0xfb, 0xe4, 0xe4] as const
const GOOD_BG = [0xe3, 0xf5, 0xea] as const
const near = (pixel: readonly [number, number, number], colour: readonly [number, number, number]) =>
  pixel.every((v, i) => Math.abs(v - (colour[i] ?? 0)) <= 6)

/** The screenshot's rows, top to bottom, each with how many of its pixels are near `colour`. */
const rowsOf = (image: Png.Image, colour: readonly [number, number, number]) =>
  Array.from({ length: image.height }, (_, y) => {
    let count = 0
    for (let x = 0; x < image.width; x++) if (near(image.rgb(x, y), colour)) count++
    return count
  })

/** The runs of consecutive rows where at least `least` pixels are near the colour: [first, last] each. */
const bands = (counts: ReadonlyArray<number>, least: number) => {
  const found: Array<[number, number]> = []
  counts.forEach((count, y) => {
    const last = found.at(-1)
    if (count < least) return
    if (last !== undefined && last[1] === y - 1) last[1] = y
    else found.push([y, y])
  })
  return found
}

describe("the fleet view on the incident scenario", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ SVC_REACH: "all" }, hostScript, ["--scenario", "incident"])
    cleanups.push(served.close)
  }, 30_000)

  it("shows the open alerts first, then what is unhealthy, then the rest; the screenshot shows them so", async () => {
    const { page, view, errors } = await open(served)
    await view.locator('[data-testid="alert"]').first().waitFor()
    // The service's own alerts (SVC_REACH=all): severity, the target by name, since when on the sandbox's clock.
    const alerts = await view.locator('[data-testid="alert"]').allTextContents()
    // Each as severity, name, what, kind and since: the scenario's times (Incident.ts), newest first.
    expect(alerts).toEqual([
      "criticalstaging-01 unreachableserver · since 2026-03-17 07:05 UTC",
      "criticalprod-02 disk at 96%server · since 2026-03-17 06:51 UTC",
    ])
    await expect(view.locator('[data-testid="open-alerts"] h2').textContent()).resolves.toContain(
      "as the service lists them",
    )
    const unhealthy = await view
      .locator("tr[data-unhealthy]")
      .evaluateAll((rows) => rows.map((r) => `${r.getAttribute("data-kind")} ${r.getAttribute("data-name")}`))
    expect(unhealthy).toEqual(["deployment api", "server staging-01", "build docs-image"])
    await expect(row(view, "deployment", "api").locator("td").nth(3).textContent()).resolves.toMatch(/crash-looping/)

    // On the page, top to bottom: the alerts, the unhealthy, then the rest; each row in one place.
    const tops = await view
      .locator('[data-testid="open-alerts"], [data-testid="unhealthy"], .main section')
      .evaluateAll((nodes) =>
        nodes.map((n) => [n.querySelector("h2")?.firstChild?.textContent, n.getBoundingClientRect().top]),
      )
    expect(tops.map(([title]) => title)).toEqual([
      "Open alerts",
      "Unhealthy",
      "Servers",
      "Stacks and deployments",
      "Builds",
    ])
    const ys = tops.map(([, top]) => Number(top))
    expect(ys).toEqual([...ys].sort((a, b) => a - b))
    for (const name of ["api", "staging-01", "docs-image"]) {
      await expect(view.locator(`tr[data-name="${name}"]`).count()).resolves.toBe(1)
    }
    expect(errors).toEqual([])

    // The screenshot, decoded: the two critical alerts are the first wide red bands, across the view, and
    // they stand above every healthy state's green.
    await page.waitForTimeout(300)
    const box = await page.locator("iframe").boundingBox()
    if (box === null) throw new Error("the view's frame is not shown")
    const shot = await page.screenshot({ clip: box })
    Fs.writeFileSync(Path.join(PICTURES, "fleet-incident.png"), shot)
    const image = Png.decode(shot)
    expect(image.width).toBe(Math.round(box.width))
    const red = bands(rowsOf(image, BAD_BG), image.width * 0.5)
    expect(red.length).toBe(2)
    // A state's pill is some 40 pixels wide; the cards' rounded corners blend a few pixels near it.
    const green = rowsOf(image, GOOD_BG).findIndex((count) => count >= 20)
    expect(green).toBeGreaterThan(0)
    for (const [first, last] of red) {
      expect(last - first).toBeGreaterThanOrEqual(20)
      expect(last).toBeLessThan(green)
    }
    // Above the alerts: the header and the summary cards alone, within the view's first quarter.
    expect(red[0]?.[0]).toBeLessThan(image.height / 4)
  }, 60_000)
})

describe("the fleet view on the incident scenario, the service's alerts out of reach", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({}, hostScript, ["--scenario", "incident"])
    cleanups.push(served.close)
  }, 30_000)

  it("reads the alerts from the states reported, and shows them first all the same", async () => {
    const { page, view, errors } = await open(served)
    await view.locator('[data-testid="alert"]').first().waitFor()
    const levels = await view
      .locator('[data-testid="alert"]')
      .evaluateAll((items) => items.map((i) => i.getAttribute("data-level")))
    expect(levels).toEqual([...levels].sort())
    const alerts = await view.locator('[data-testid="alert"]').allTextContents()
    expect(alerts.some((a) => a.includes("staging-01") && a.includes("unreachable"))).toBe(true)
    expect(alerts.some((a) => a.includes("prod-02") && a.includes("disk at 96%"))).toBe(true)
    expect(alerts.some((a) => a.includes("api") && a.includes("restarting"))).toBe(true)
    await expect(view.locator('[data-testid="open-alerts"] h2').textContent()).resolves.toContain(
      "read from the states reported",
    )
    // Refused once as out of reach, the service's list is not asked for again by a refresh.
    await view.locator('button[data-action="refresh"]').click()
    await view.locator('button[data-action="refresh"]:text-is("refresh")').waitFor()
    const { calls } = await hostState(page)
    expect(calls.filter((c) => c.arguments.resource_type === "alert")).toHaveLength(1)
    expect(errors).toEqual([])
  }, 30_000)
})
