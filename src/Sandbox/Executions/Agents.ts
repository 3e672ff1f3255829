/**
 * Whether the agent on an execution's server answers. The service reaches a
 * server's agent for everything run on it, so on a server that stopped
 * answering the execution starts, then fails with the error of the request
 * that timed out.
 */
import type { Kind } from "../World/ResourceTypes.js"
import type { Resource } from "../World/Store.js"
import type { World } from "../World/World.js"

/** The server an execution on `resource` of `kind` runs on, if it runs on one. */
const serverOf = (world: World, kind: Kind, resource: Resource): Resource | undefined => {
  if (kind === "server") return resource
  if (kind !== "stack" && kind !== "deployment" && kind !== "repo") return undefined
  const id = String(resource.config.server_id ?? "")
  return world.store.all("server").find((s) => s.id === id || s.name === id)
}

/** The failure an execution meets on an unreachable server, as the service logs it; undefined if it is reached. */
export const unreachable = (world: World, kind: Kind, resource: Resource): ReadonlyArray<string> | undefined => {
  const server = serverOf(world, kind, resource)
  if (server === undefined || !world.watch.unreachable.has(server.id)) return undefined
  const address = String(server.config.address ?? "")
  return [
    `ERROR: Failed to reach the agent on server ${server.name}`,
    "",
    "TRACE:",
    `\t1: request to ${address} failed`,
    `\t2: error sending request for url (${address}/): operation timed out`,
  ]
}
