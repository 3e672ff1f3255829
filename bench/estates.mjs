/**
 * The answers the bench's service double gives for lists: taken once per run from the built
 * server's own sandbox (`svc-mcp sandbox --estate small|large`), so that the double answers a
 * list as the service does (its records, their ids, the names they point at) while costing no
 * more than the double's echo. Only the reads a list's default answer makes are taken: the list,
 * the default page (GetCoreInfo), and the names of servers, tags and builders.
 */
import * as ChildProcess from "node:child_process"

/** Each read as the server sends it: its path and body. */
export const READS = [
  ["read/ListStacks", {}],
  ["read/ListDeployments", {}],
  ["read/GetCoreInfo", {}],
  ["read/ListServers", { limit: 0 }],
  ["read/ListTags", {}],
  ["read/ListBuilders", { limit: 0 }],
]

export const ESTATES = ["small", "large"]

const sandbox = (entry, estate) =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.spawn(process.execPath, [entry, "sandbox", "--estate", estate], {
      stdio: ["ignore", "ignore", "pipe"],
    })
    let out = ""
    // It says where it listens on stderr, with the credentials.
    child.stderr.on("data", (chunk) => {
      out += chunk
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url !== undefined) resolve({ child, url })
    })
    child.on("error", reject)
    child.on("exit", (code) => reject(new Error(`the sandbox ended (${code}) before it listened`)))
  })

/** `{ small: { "read/ListStacks": text, ... }, large: {...} }`: each read's answer, as the sandbox sent it. */
export const takeEstates = async (entry) => {
  const taken = {}
  for (const estate of ESTATES) {
    const { child, url } = await sandbox(entry, estate)
    try {
      taken[estate] = {}
      for (const [path, body] of READS) {
        const response = await fetch(`${url}/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "sandbox-key", "x-api-secret": "sandbox-secret" },
          body: JSON.stringify(body),
        })
        if (!response.ok) throw new Error(`${estate} ${path}: ${response.status}`)
        taken[estate][path] = await response.text()
      }
    } finally {
      child.removeAllListeners("exit")
      child.kill()
    }
  }
  return taken
}
