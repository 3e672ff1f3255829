/**
 * Files the service writes or commits for a resource (a stack's compose file,
 * a build's Dockerfile, a sync's resource files), the caches it re-reads from
 * their repositories, a sync's pending changes and its commit, and its checks
 * for newer images. A written compose file is what later reads of the stack
 * show and what its next deploy runs.
 */
import * as Alerts from "../Monitoring/Alerts.js"
import { exportAll } from "../Resources/Meta.js"
import type { Handler } from "../Resources/Resources.js"
import { full } from "../Resources/Shapes.js"
import { TomlError } from "../Resources/SyncToml.js"
import { composeOf, imagesOf, stackServices } from "../World/Lifecycle.js"
import { requireLevel } from "../World/Permissions.js"
import { type Caller, type Params, type Resource, ref, ServiceFailure } from "../World/Store.js"
import { BOUNDS, type World } from "../World/World.js"
import { declaredIn, headOf, pendingInfo } from "./SyncPending.js"

type Add = (endpoint: string, handler: Handler) => void

/** A commit's hash: the next one after `previous`, the same every run. */
const nextHash = (previous: unknown, salt: string) => {
  let h = 0x811c9dc5
  for (const c of `${String(previous)}/${salt}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0
  return h.toString(16).padStart(8, "0").slice(0, 7)
}

const contentsOf = (r: Resource): Array<Record<string, unknown>> =>
  Array.isArray(r.info.remote_contents) ? [...(r.info.remote_contents as Array<Record<string, unknown>>)] : []

/** Commits `contents` at `path` in the resource's repository (or writes it on its host), as one finished Update. */
const commit = (
  world: World,
  caller: Caller,
  r: Resource,
  target: string,
  op: string,
  file: Record<string, unknown>,
) => {
  const path = String(file.path)
  const hash = nextHash(r.info.latest_hash, `${path}:${String(file.contents)}`)
  const message = `${caller.username}: Write ${path}`
  const update = world.newUpdate(op, { type: target, id: r.id }, caller.id)
  const onHost = r.config.files_on_host === true
  const lines = onHost
    ? [`wrote ${path} on the host`]
    : [`wrote ${path}`, `[main ${hash}] ${message}`, "pushed to origin/main"]
  world.finish(update, onHost ? "Write File" : "Commit", onHost ? "" : `git commit -m "${message}"`, lines, true)
  r.info = { ...r.info, latest_hash: hash, latest_message: message }
  return update
}

/**
 * The head of a sync's repository once its files were written: what they declare, from the
 * commit just made; a file that is not TOML leaves the head as it was and is the refresh's error.
 */
const headFromFiles = (world: World, sync: Resource): void => {
  const repo = String(sync.config.repo ?? "")
  const files = contentsOf(sync)
  if (repo === "" || files.length === 0) return
  try {
    const declared = files.flatMap((f) => declaredIn(String(f.contents ?? "")))
    const head = { hash: String(sync.info.latest_hash), message: String(sync.info.latest_message), declared }
    world.repositories.set(repo, head)
    if (world.repositories.size > BOUNDS.repositories) {
      world.repositories.delete(world.repositories.keys().next().value as string)
    }
    sync.info = { ...sync.info, pending_error: "" }
  } catch (error) {
    if (!(error instanceof TomlError)) throw error
    sync.info = { ...sync.info, pending_error: error.message }
  }
}

const fileRoutes = (world: World, add: Add) => {
  const { store } = world
  add("write/WriteStackFileContents", (p, caller) => {
    const stack = store.find("stack", ref(p, "stack", "id", "name"))
    requireLevel(world, caller, "stack", stack, "Write")
    if (stack.config.files_on_host !== true && String(stack.config.repo ?? "") === "") {
      throw new ServiceFailure(
        500,
        "Stack is not configured to use Files on Host or Git Repo, can't write file contents",
      )
    }
    const path = ref(p, "file_path")
    const file = { path, contents: String(p.contents ?? "") }
    const files = contentsOf(stack).filter((f) => f.path !== path)
    stack.info = { ...stack.info, remote_contents: [...files, { ...file, services: composeOf(file.contents) }] }
    return commit(world, caller, stack, "Stack", "WriteStackContents", file)
  })
  add("write/WriteBuildFileContents", (p, caller) => {
    const build = store.find("build", ref(p, "build", "id", "name"))
    requireLevel(world, caller, "build", build, "Write")
    const contents = String(p.contents ?? "")
    if (String(build.config.repo ?? "") === "" && build.config.files_on_host !== true) {
      build.config = { ...build.config, dockerfile: contents }
    } else build.info = { ...build.info, remote_contents: contents }
    return commit(world, caller, build, "Build", "WriteDockerfile", { path: "Dockerfile", contents })
  })
  add("write/WriteSyncFileContents", (p, caller) => {
    const sync = store.find("sync_resource", ref(p, "sync", "id", "name"))
    requireLevel(world, caller, "sync_resource", sync, "Write")
    const file = {
      resource_path: String(p.resource_path ?? ""),
      path: ref(p, "file_path"),
      contents: String(p.contents),
    }
    const files = contentsOf(sync).filter((f) => f.path !== file.path || f.resource_path !== file.resource_path)
    sync.info = { ...sync.info, remote_contents: [...files, file] }
    const update = commit(world, caller, sync, "ResourceSync", "WriteSyncContents", file)
    headFromFiles(world, sync)
    return update
  })
}

/** The compose file a repository's stack holds, as its services say (when none was written yet). */
const seededCompose = (stack: Resource) =>
  `services:\n${stackServices(stack)
    .map((s) => `  ${s.service}:\n    image: ${s.image}\n`)
    .join("")}`

const cacheRoutes = (world: World, add: Add) => {
  const { store, schema } = world
  add("write/RefreshStackCache", (p, caller) => {
    const stack = store.find("stack", ref(p, "stack", "id", "name"))
    requireLevel(world, caller, "stack", stack, "Execute")
    if (contentsOf(stack).length === 0 && String(stack.config.repo ?? "") !== "") {
      const paths = Array.isArray(stack.config.file_paths) ? stack.config.file_paths : ["compose.yaml"]
      const contents = seededCompose(stack)
      // The repository's head is read with its files: the commit a deploy then records as deployed.
      const head =
        typeof stack.info.latest_hash === "string" && stack.info.latest_hash !== ""
          ? {}
          : {
              latest_hash: nextHash(undefined, `${stack.name}/${String(stack.config.repo)}`),
              latest_message: "Update compose.yaml",
            }
      stack.info = {
        ...stack.info,
        ...head,
        remote_contents: [{ path: String(paths[0] ?? "compose.yaml"), contents, services: composeOf(contents) }],
      }
    }
    return {}
  })
  for (const kind of ["build", "repo"] as const) {
    add(`write/Refresh${kind === "build" ? "Build" : "Repo"}Cache`, (p, caller) => {
      requireLevel(world, caller, kind, store.find(kind, ref(p, kind, "id", "name")), "Execute")
      return {}
    })
  }
  add("write/RefreshResourceSyncPending", (p, caller) => {
    const sync = store.find("sync_resource", ref(p, "sync", "id", "name"))
    requireLevel(world, caller, "sync_resource", sync, "Execute")
    // Its files read again: one that is not TOML is the refresh's error, and the plan stays as it was.
    headFromFiles(world, sync)
    const error = typeof sync.info.pending_error === "string" ? sync.info.pending_error : ""
    // A sync of a repository the sandbox does not hold keeps what it had.
    const head = headOf(world, sync)
    if (head !== undefined && error === "") sync.info = { ...sync.info, ...pendingInfo(world, head, sync.config) }
    return full(schema, "sync_resource", sync)
  })
  add("write/CommitSync", (p, caller) => {
    const sync = store.find("sync_resource", ref(p, "sync", "id", "name"))
    requireLevel(world, caller, "sync_resource", sync, "Write")
    if (sync.config.managed !== true) {
      throw new ServiceFailure(500, "Cannot commit to sync. Enable 'managed' mode.")
    }
    const toml = exportAll(world, caller, { tags: sync.config.match_tags })
    const path = String(Array.isArray(sync.config.resource_path) ? (sync.config.resource_path[0] ?? "") : "")
    const file = { resource_path: path, path: "sync.toml", contents: toml }
    sync.info = { ...sync.info, remote_contents: [file] }
    const update = commit(world, caller, sync, "ResourceSync", "CommitSync", file)
    // The repository's head is what was committed, read back as a refresh reads it.
    headFromFiles(world, sync)
    const head = headOf(world, sync)
    if (head !== undefined && sync.info.pending_error === "") {
      sync.info = { ...sync.info, ...pendingInfo(world, head, sync.config) }
    }
    return update
  })
}

const checkRoutes = (world: World, add: Add, batch: Batch) => {
  const { store } = world
  const checkStack = (p: Params, caller: Caller) => {
    const stack = store.find("stack", ref(p, "stack", "id", "name"))
    requireLevel(world, caller, "stack", stack, "Execute")
    stack.info = { ...stack.info, update_checked: true }
    const services = imagesOf(stack).map(({ service, image }) => {
      const newer = world.docker.newerImages.has(image)
      if (newer) {
        Alerts.raise(
          world,
          { type: "Stack", id: stack.id },
          alertOf(world, "StackImageUpdateAvailable", stack, { service, image }),
        )
      }
      return { service, image, update_available: newer, ...(newer ? { latest_image: image } : {}) }
    })
    return { stack: stack.id, services }
  }
  const checkDeployment = (p: Params, caller: Caller) => {
    const deployment = store.find("deployment", ref(p, "deployment", "id", "name"))
    requireLevel(world, caller, "deployment", deployment, "Execute")
    deployment.info = { ...deployment.info, update_checked: true }
    const [image] = imagesOf(deployment)
    const newer = image !== undefined && world.docker.newerImages.has(image.image)
    if (newer) {
      const condition = alertOf(world, "DeploymentImageUpdateAvailable", deployment, { image: image.image })
      Alerts.raise(world, { type: "Deployment", id: deployment.id }, condition)
    }
    return { deployment: deployment.id, update_available: newer }
  }
  add("write/CheckStackForUpdate", checkStack)
  add("write/CheckDeploymentForUpdate", checkDeployment)
  add("write/BatchCheckStackForUpdate", (p, caller) =>
    batch("stack", p, caller).then((matches) => matches.map((r) => checkStack({ stack: r.id }, caller))),
  )
  add("write/BatchCheckDeploymentForUpdate", (p, caller) =>
    batch("deployment", p, caller).then((matches) => matches.map((r) => checkDeployment({ deployment: r.id }, caller))),
  )
}

const alertOf = (world: World, type: string, r: Resource, extra: Record<string, unknown>) => {
  const server = world.store.all("server").find((s) => s.id === r.config.server_id)
  return {
    type,
    level: "OK" as const,
    data: { id: r.id, name: r.name, server_id: server?.id ?? "", server_name: server?.name ?? "", ...extra },
  }
}

/** The resources a batch's `pattern` and `tags` select that the caller may execute. */
type Batch = (kind: "stack" | "deployment", params: Params, caller: Caller) => Promise<ReadonlyArray<Resource>>

export const handlers = (world: World, batch: Batch): Map<string, Handler> => {
  const routes = new Map<string, Handler>()
  const add: Add = (endpoint, handler) => routes.set(endpoint, handler)
  fileRoutes(world, add)
  cacheRoutes(world, add)
  checkRoutes(world, add, batch)
  return routes
}
