/**
 * The built page (scripts/build-view.mjs writes dist/fleet-view.js), found
 * beside the running code: the bundle (dist/svc-mcp/) and the library
 * (dist/View/) have it one folder up, the sources (src/View/) in dist/.
 */
const CANDIDATES = ["../fleet-view.js", "../../dist/fleet-view.js"]

export const load = async (): Promise<string> => {
  const problems: Array<string> = []
  for (const candidate of CANDIDATES) {
    const url = new URL(candidate, import.meta.url).href
    try {
      const page: { default: unknown } = await import(/* @vite-ignore */ url)
      if (typeof page.default === "string") return page.default
      problems.push(`${url} holds no page`)
    } catch (error) {
      problems.push(`${url}: ${error instanceof Error ? error.message.split("\n", 1)[0] : String(error)}`)
    }
  }
  throw new Error(problems.join("; "))
}
