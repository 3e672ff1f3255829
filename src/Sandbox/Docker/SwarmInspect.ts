/**
 * A swarm's objects as the service's Inspect* answers them (Docker's own
 * inspects, with the service's `Mode`, `Replicas` and `State` beside a
 * service's): the swarm, a node, a task and a service, the swarm's own or a
 * stack's or deployment's on it. Durations are in nanoseconds, as Docker's.
 * A swarm's join tokens are there, as a manager answers them: the tools redact them.
 */
import { createHash } from "node:crypto"
import type { Resource } from "../World/Store.js"
import type { World } from "../World/World.js"
import { bornAt, hostOf, type SwarmParts, type SwarmService, updatedAt } from "./Swarm.js"

const SECONDS = 1_000_000_000
/** The engine every node runs. */
const ENGINE = "27.3.1"
/** The index of each object's last change in the swarm's raft log, as docker versions them: the order they were made in. */
const version = (index: number) => ({ Index: index })

/** A join token as docker makes one: `SWMTKN-1-`, the CA's digest, then the role's secret (base 36). */
const joinToken = (swarm: Resource, role: string) => {
  const digits = (seed: string, length: number) =>
    createHash("sha256")
      .update(seed)
      .digest()
      .subarray(0, length)
      .reduce((out, byte) => out + (byte % 36).toString(36), "")
  return `SWMTKN-1-${digits(`${swarm.id}:ca`, 25)}${digits(`${swarm.id}:ca2`, 25)}-${digits(`${swarm.id}:${role}`, 25)}`
}

/** The swarm, as `docker swarm init` made it: docker's defaults. */
export const inspectSwarm = (swarm: Resource) => ({
  ID: swarm.id,
  Version: version(10),
  CreatedAt: bornAt(swarm),
  UpdatedAt: updatedAt(swarm),
  Spec: {
    Name: swarm.name,
    Labels: {},
    Orchestration: { TaskHistoryRetentionLimit: 5 },
    Raft: {
      SnapshotInterval: 10_000,
      KeepOldSnapshots: 0,
      LogEntriesForSlowFollowers: 500,
      ElectionTick: 10,
      HeartbeatTick: 1,
    },
    Dispatcher: { HeartbeatPeriod: 5 * SECONDS },
    CAConfig: { NodeCertExpiry: 90 * 24 * 3600 * SECONDS },
    TaskDefaults: {},
    EncryptionConfig: { AutoLockManagers: false },
  },
  // As a manager answers: the tokens a node joins with, which the tools never show.
  JoinTokens: { Worker: joinToken(swarm, "worker"), Manager: joinToken(swarm, "manager") },
  RootRotationInProgress: false,
  DataPathPort: 4789,
  DefaultAddrPool: ["10.0.0.0/8"],
  SubnetSize: 24,
})

/** A node: its server's host, address and memory; the first node the swarm's leader. */
export const inspectNode = (world: World) => (node: SwarmParts["nodes"][number], parts: SwarmParts) => {
  const server = world.store.all("server").find((s) => s.name === node.Hostname)
  const stats = (server?.info.stats ?? {}) as { mem_total_gb?: number }
  const manager = node.Role === "manager"
  return {
    ID: node.ID,
    Version: version(20 + parts.nodes.indexOf(node)),
    CreatedAt: node.CreatedAt,
    UpdatedAt: node.UpdatedAt,
    Spec: { Name: node.Name, Labels: {}, Role: node.Role, Availability: node.Availability },
    Description: {
      Hostname: node.Hostname,
      Platform: { Architecture: "x86_64", OS: "linux" },
      Resources: { NanoCPUs: 4 * SECONDS, MemoryBytes: Math.round((stats.mem_total_gb ?? 16) * 1024 ** 3) },
      Engine: {
        EngineVersion: ENGINE,
        Plugins: [
          { Type: "Network", Name: "overlay" },
          { Type: "Volume", Name: "local" },
        ],
      },
    },
    Status: { State: node.State, Addr: hostOf(server) },
    ...(manager
      ? { ManagerStatus: { Leader: parts.nodes[0] === node, Reachability: "reachable", Addr: node.ManagerAddr } }
      : {}),
  }
}

/** A task: one replica of the swarm's service, its container running on its node. */
export const inspectTask = (task: SwarmParts["tasks"][number], parts: SwarmParts) => ({
  ID: task.ID,
  Version: version(40 + parts.tasks.indexOf(task)),
  CreatedAt: task.CreatedAt,
  UpdatedAt: task.UpdatedAt,
  Name: task.Name,
  Labels: {},
  Spec: taskTemplate(parts.proxy),
  ServiceID: task.ServiceID,
  Slot: Number(task.Name.split(".").at(-1)),
  NodeID: task.NodeID,
  Status: {
    Timestamp: task.UpdatedAt,
    State: task.State,
    Message: "started",
    ContainerStatus: { ContainerID: task.ContainerID, PID: 2100 + Number(task.Name.split(".").at(-1)), ExitCode: 0 },
  },
  DesiredState: task.DesiredState,
})

/** What each of a service's tasks runs: its image, with its configs and secrets as files (never their data). */
const taskTemplate = (s: SwarmService) => ({
  ContainerSpec: {
    Image: s.image,
    Configs: s.configs.map((name, i) => ({
      File: { Name: `/etc/${name}`, UID: "0", GID: "0", Mode: 0o444 },
      ConfigID: `cfg${i + 1}proxy`,
      ConfigName: name,
    })),
    Secrets: s.secrets.map((name, i) => ({
      File: { Name: name, UID: "0", GID: "0", Mode: 0o444 },
      SecretID: `sec${i + 1}tls`,
      SecretName: name,
    })),
  },
  RestartPolicy: { Condition: "any", Delay: 5 * SECONDS, MaxAttempts: 0 },
  Placement: {},
  ForceUpdate: 0,
  Runtime: "container",
})

/** A service as docker inspects it: its last update completed when it last changed. */
export const inspectService = (s: SwarmService) => {
  const endpoint = {
    Mode: "vip",
    Ports: s.ports.map((port) => ({ Protocol: "tcp", TargetPort: port, PublishedPort: port, PublishMode: "ingress" })),
  }
  return {
    ID: s.id,
    Version: version(s.updated === s.created ? 31 : 38),
    CreatedAt: s.created,
    UpdatedAt: s.updated,
    Spec: {
      Name: s.name,
      Labels: s.stack === undefined ? {} : { "com.docker.stack.namespace": s.stack },
      TaskTemplate: taskTemplate(s),
      Mode: { Replicated: { Replicas: s.replicas } },
      UpdateConfig: {
        Parallelism: 1,
        FailureAction: "pause",
        Monitor: 5 * SECONDS,
        MaxFailureRatio: 0,
        Order: "stop-first",
      },
      EndpointSpec: endpoint,
    },
    Endpoint: {
      Spec: endpoint,
      Ports: endpoint.Ports,
      // On the routing mesh where it publishes a port.
      VirtualIPs: s.ports.length === 0 ? [] : [{ NetworkID: "ingress0swarm", Addr: "10.0.0.7/24" }],
    },
    Mode: "Replicated",
    Replicas: s.replicas,
    State: s.state,
    ServiceStatus: { RunningTasks: s.running, DesiredTasks: s.replicas, CompletedTasks: 0 },
    // Docker's, once it was updated since made.
    ...(s.updated === s.created
      ? {}
      : {
          UpdateStatus: {
            State: "completed",
            StartedAt: s.updated,
            CompletedAt: s.updated,
            Message: "update completed",
          },
        }),
  }
}
