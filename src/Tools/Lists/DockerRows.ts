/**
 * The default answer of each docker list, as data, read as Projections.ts's
 * table is: a server's containers, images, networks and volumes, a swarm's
 * lists, and the services of every stack. Each row keeps the name, the state
 * and what an operator asks about first; the ids of a container or an image
 * (64 hex digits each) are one field away, a swarm object's shorter id is
 * kept, as the swarm's operations take it. No column reads a label: labels
 * are untrusted (Untrusted/Fields.ts).
 */
import type { Column } from "./Columns.js"

/**
 * A list's entry: its noun, its columns and the path of `more`. A column is a
 * path, labelled in lower case (`Name` is `name`), or `label:path`.
 */
const entry = (noun: string, columns: ReadonlyArray<string | Column>, more: string) => ({
  noun,
  columns: columns.map((column): Column => {
    if (typeof column !== "string") return column
    const [label, path] = column.includes(":") ? column.split(":") : [column.toLowerCase(), column]
    return { label: label ?? "", path: path ?? "" }
  }),
  more,
})

const CONTAINER = ["name", "state", "status", "image"]
const NETWORK = ["name", "driver", "scope", "in_use", "subnet:ipam_subnet"]
const STACK_SERVICES = entry(
  "services",
  [{ label: "stack", path: "stack_id", name: "stack", given: "stack_name" }, "service", "state", "image"],
  "image_digests",
)

// The swarm's own records are spelled as the Docker engine spells them.
export const DOCKER_PROJECTIONS = {
  "read/ListContainers": entry("containers", CONTAINER, "id"),
  "read/ListAllContainers": entry(
    "containers",
    [...CONTAINER, { label: "server", path: "server_id", name: "server", given: "server_name" }],
    "id",
  ),
  "read/ListImages": entry("images", ["name", "in_use", "size", "created"], "id"),
  "read/ListNetworks": entry("networks", NETWORK, "id"),
  "read/ListSwarmNetworks": entry("networks", NETWORK, "id"),
  "read/ListVolumes": entry("volumes", ["name", "driver", "in_use", "size"], "mountpoint"),
  "read/ListSwarmNodes": entry("nodes", ["Name", "ID", "Hostname", "Role", "State", "Availability"], "ManagerAddr"),
  "read/ListSwarmServices": entry(
    "services",
    ["Name", "ID", "State", "Image", "Mode", "Replicas", "running:RunningTasks"],
    "UpdatedAt",
  ),
  "read/ListSwarmTasks": entry(
    "tasks",
    ["Name", "ID", "State", "desired:DesiredState", "node:NodeID", "service:ServiceID"],
    "ContainerID",
  ),
  "read/ListSwarmSecrets": entry("secrets", ["Name", "ID", "in_use:InUse", "Driver"], "UpdatedAt"),
  "read/ListSwarmConfigs": entry("configs", ["Name", "ID", "in_use:InUse"], "UpdatedAt"),
  "read/ListSwarmStacks": entry("stacks", ["Name", "State", "Services"], "Orchestrator"),
  "read/ListAllStackServices": STACK_SERVICES,
  // One stack's (SVC_REACH=all), as every stack's.
  "read/ListStackServices": STACK_SERVICES,
}
