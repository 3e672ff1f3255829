/**
 * The default answer of each docker list, as data, read as Projections.ts's
 * table is: a server's containers, images, networks and volumes, a swarm's
 * lists, and the services of every stack. Each row keeps the name, the state
 * and what an operator asks about first; the ids of a container or an image
 * (64 hex digits each) are one field away, a swarm object's shorter id is
 * kept, as the swarm's operations take it. No column reads a label: labels
 * are untrusted (Untrusted/Fields.ts).
 */
const NAME = { label: "name", path: "name" } as const
const STATE = { label: "state", path: "state" } as const
const IN_USE = { label: "in_use", path: "in_use" } as const
const DRIVER = { label: "driver", path: "driver" } as const
const CONTAINER = [NAME, STATE, { label: "status", path: "status" }, { label: "image", path: "image" }] as const
const NETWORK = [
  NAME,
  DRIVER,
  { label: "scope", path: "scope" },
  IN_USE,
  { label: "subnet", path: "ipam_subnet" },
] as const
// The swarm's own records are spelled as the Docker engine spells them.
const SWARM_NAME = { label: "name", path: "Name" } as const
const SWARM_ID = { label: "id", path: "ID" } as const
const SWARM_STATE = { label: "state", path: "State" } as const

const STACK_SERVICES = {
  noun: "services",
  columns: [
    { label: "stack", path: "stack_id", name: "stack", given: "stack_name" },
    { label: "service", path: "service" },
    { label: "state", path: "state" },
    { label: "image", path: "image" },
  ],
  more: "image_digests",
} as const

// Typed where Projections.ts spreads it into its table, which this module does not import.
export const DOCKER_PROJECTIONS = {
  "read/ListContainers": { noun: "containers", columns: CONTAINER, more: "id" },
  "read/ListAllContainers": {
    noun: "containers",
    columns: [...CONTAINER, { label: "server", path: "server_id", name: "server", given: "server_name" }],
    more: "id",
  },
  "read/ListImages": {
    noun: "images",
    columns: [NAME, IN_USE, { label: "size", path: "size" }, { label: "created", path: "created" }],
    more: "id",
  },
  "read/ListNetworks": { noun: "networks", columns: NETWORK, more: "id" },
  "read/ListSwarmNetworks": { noun: "networks", columns: NETWORK, more: "id" },
  "read/ListVolumes": {
    noun: "volumes",
    columns: [NAME, DRIVER, IN_USE, { label: "size", path: "size" }],
    more: "mountpoint",
  },
  "read/ListSwarmNodes": {
    noun: "nodes",
    columns: [
      SWARM_NAME,
      SWARM_ID,
      { label: "hostname", path: "Hostname" },
      { label: "role", path: "Role" },
      SWARM_STATE,
      { label: "availability", path: "Availability" },
    ],
    more: "ManagerAddr",
  },
  "read/ListSwarmServices": {
    noun: "services",
    columns: [
      SWARM_NAME,
      SWARM_ID,
      SWARM_STATE,
      { label: "image", path: "Image" },
      { label: "mode", path: "Mode" },
      { label: "replicas", path: "Replicas" },
      { label: "running", path: "RunningTasks" },
    ],
    more: "UpdatedAt",
  },
  "read/ListSwarmTasks": {
    noun: "tasks",
    columns: [
      SWARM_NAME,
      SWARM_ID,
      SWARM_STATE,
      { label: "desired", path: "DesiredState" },
      { label: "node", path: "NodeID" },
      { label: "service", path: "ServiceID" },
    ],
    more: "ContainerID",
  },
  "read/ListSwarmSecrets": {
    noun: "secrets",
    columns: [SWARM_NAME, SWARM_ID, { label: "in_use", path: "InUse" }, { label: "driver", path: "Driver" }],
    more: "UpdatedAt",
  },
  "read/ListSwarmConfigs": {
    noun: "configs",
    columns: [SWARM_NAME, SWARM_ID, { label: "in_use", path: "InUse" }],
    more: "UpdatedAt",
  },
  "read/ListSwarmStacks": {
    noun: "stacks",
    columns: [SWARM_NAME, SWARM_STATE, { label: "services", path: "Services" }],
    more: "Orchestrator",
  },
  "read/ListAllStackServices": STACK_SERVICES,
  // One stack's (SVC_REACH=all), as every stack's.
  "read/ListStackServices": STACK_SERVICES,
} as const
