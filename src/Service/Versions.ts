/**
 * What differs between service versions, as far as our tools are concerned.
 */

/** The API version interface.md maps. */
export const SPEC_VERSION = "2.3.3"

/** Endpoints of interface.md that services older than 2.3.3 do not have. */
export const ADDED_IN_2_3_3: ReadonlySet<string> = new Set([
  "write/UpdateUserGroup",
  "execute/RunServerRefreshContainers",
  "execute/RunServerRunCommand",
  "execute/RunServerScripts",
  "execute/RunServerCopy",
  "execute/RunServerMove",
  "read/InspectStackSwarmInfo",
])

/** Compares dotted versions numerically ("2.10.0" > "2.3.3"); a leading "v" and any suffix are ignored. */
export const compare = (a: string, b: string): number => {
  const parts = (v: string) =>
    v
      .trim()
      .replace(/^v/i, "")
      .split(/[.+-]/)
      .slice(0, 3)
      .map((p) => Number.parseInt(p, 10) || 0)
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < 3; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return Math.sign(d)
  }
  return 0
}
