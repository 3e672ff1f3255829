/**
 * A build's steps as the service logs them in its Update: the clone of its
 * repository at the commit it builds, docker's build, and the push of the
 * image, each a stage with its command and output.
 */
import type { Resource } from "../World/Store.js"
import type { UpdateRecord, World } from "../World/World.js"

/** Adds the stages of building `r` as `tag` to `update`. */
export const buildSteps = (world: World, r: Resource, update: UpdateRecord, tag: string): void => {
  const repo = String(r.config.repo ?? r.name)
  const branch = String(r.config.branch ?? "main")
  const hash = String(r.info.latest_hash ?? r.info.built_hash ?? "3f2c9e1")
  const message = String(r.info.latest_message ?? "")
  const image = `ghcr.io/${repo}:${tag}`
  const step = (stage: string, command: string, stdout: ReadonlyArray<string>) => {
    const ts = world.now()
    update.logs.push({ stage, command, stdout: stdout.join("\n"), stderr: "", success: true, start_ts: ts, end_ts: ts })
  }
  step("Clone Repo", `git clone https://github.com/${repo}.git -b ${branch}`, [
    `Cloning into '${repo.split("/").pop() ?? repo}'...`,
    `HEAD is now at ${hash}${message === "" ? "" : ` ${message}`}`,
  ])
  step("Build", `docker build -t ${image} -f Dockerfile .`, [
    "#1 [internal] load build definition from Dockerfile",
    "#5 [build 1/5] FROM docker.io/library/node:22-alpine",
    "#8 [build 4/5] RUN npm run build",
    "#8 DONE 11.2s",
    `#10 naming to ${image} done`,
  ])
  step("Push", `docker push ${image}`, [`${tag}: digest: sha256:9c1f${hash}e4a7 size: 2204`])
  r.info = { ...r.info, built_hash: hash }
}
