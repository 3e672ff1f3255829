/**
 * What the sandbox's executions of stacks and deployments log, as the
 * service's agent runs them: git and docker compose for a stack, docker for a
 * deployment, each stage with its command and what the process wrote where it
 * wrote it; a step that fails with its error on stderr and nothing changed; the
 * incident's crash-looping deploy and its rollback; the same two runs in a row.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SandboxOptions } from "../../../src/Sandbox/Server.js"
import * as Sandboxes from "../../support/Sandbox.js"

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any

const sandboxOf = (options: SandboxOptions = {}) =>
  Effect.map(Sandboxes.scoped(options), (sandbox) => {
    const { ok, run } = Sandboxes.asAdmin(sandbox)
    const stateOf = (list: string, name: string) =>
      Effect.map(ok(`read/${list}`, {}), (items) => items.find((d: Any) => d.name === name)?.info.state)
    return { sandbox, ok, run, stateOf }
  })

/** Each stage as `[stage, command, stdout, stderr, success]`: what the service logs, without its times. */
const stagesOf = (update: Any) =>
  update.logs.map((l: Any) => [l.stage, l.command, l.stdout, l.stderr, l.success] as const)

const lines = (...all: ReadonlyArray<string>) => all.join("\n")

describe("the sandbox's stacks, as docker compose runs them", () => {
  it.scopedLive("a deploy pulls the repository, then compose pulls and brings the stack up", () =>
    Effect.gen(function* () {
      const { run, stateOf } = yield* sandboxOf()
      const deploy = yield* run("DeployStack", { stack: "staging-web" })
      expect(deploy.success).toBe(true)
      const cd = "cd /etc/komodo/stacks/staging-web && "
      const compose = "docker compose -p staging-web -f compose.yaml"
      const stages = stagesOf(deploy)
      expect(stages.map((s: Any) => s[0])).toEqual([
        "Set git remote",
        "Checkout branch",
        "Git pull",
        "Latest Commit",
        "Compose Pull",
        "Compose Up",
      ])
      expect(stages[0]).toEqual([
        "Set git remote",
        `${cd}git remote set-url origin https://github.com/acme/staging-web.git`,
        "",
        "",
        true,
      ])
      expect(stages[2]).toEqual([
        "Git pull",
        `${cd}git pull --rebase --force origin main`,
        "Already up to date.",
        lines("From https://github.com/acme/staging-web", " * branch            main       -> FETCH_HEAD"),
        true,
      ])
      expect(stages[4]).toEqual([
        "Compose Pull",
        `${cd}${compose} pull`,
        "",
        lines(" web Pulling", " web Pulled", " worker Pulling", " worker Pulled", " redis Pulling", " redis Pulled"),
        true,
      ])
      // Its containers were stopped: compose starts them as they are.
      expect(stages[5]).toEqual([
        "Compose Up",
        `${cd}${compose} up -d`,
        "",
        lines(
          " Container staging-web-web-1  Starting",
          " Container staging-web-worker-1  Starting",
          " Container staging-web-redis-1  Starting",
          " Container staging-web-web-1  Started",
          " Container staging-web-worker-1  Started",
          " Container staging-web-redis-1  Started",
        ),
        true,
      ])
      expect(yield* stateOf("ListStacks", "staging-web")).toBe("running")
    }),
  )

  it.scopedLive("start, restart, stop, down by project name; some services named first; start with none fails", () =>
    Effect.gen(function* () {
      const { run, stateOf } = yield* sandboxOf()
      const restart = yield* run("RestartStack", { stack: "web", services: ["worker"] })
      expect(stagesOf(restart)).toEqual([
        ["Service/s", "", "Execution requested for Stack service/s worker", "", true],
        [
          "Compose Command",
          "docker compose -p web restart worker",
          "",
          lines(" Container web-worker-1  Restarting", " Container web-worker-1  Started"),
          true,
        ],
      ])
      const down = yield* run("DestroyStack", { stack: "web", stop_time: 30, remove_orphans: true })
      expect(stagesOf(down)).toEqual([
        [
          "Compose Command",
          "docker compose -p web down --timeout 30 --remove-orphans",
          "",
          lines(
            ...["web", "worker", "redis"].map((s) => ` Container web-${s}-1  Stopping`),
            ...["web", "worker", "redis"].map((s) => ` Container web-${s}-1  Stopped`),
            ...["web", "worker", "redis"].map((s) => ` Container web-${s}-1  Removing`),
            ...["web", "worker", "redis"].map((s) => ` Container web-${s}-1  Removed`),
            " Network web_default  Removing",
            " Network web_default  Removed",
          ),
          true,
        ],
      ])
      expect(yield* stateOf("ListStacks", "web")).toBe("down")
      // No container left to start: compose says so and exits 1; the stack stays down.
      const start = yield* run("StartStack", { stack: "web" })
      expect(start.success).toBe(false)
      expect(stagesOf(start)).toEqual([
        ["Compose Command", "docker compose -p web start", "", 'service "web" has no container to start', false],
      ])
      expect(yield* stateOf("ListStacks", "web")).toBe("down")
      // A deploy creates its network and containers anew.
      const deploy = yield* run("DeployStack", { stack: "web" })
      expect(deploy.logs.at(-1).stderr).toMatch(
        /^ Network web_default {2}Creating\n Network web_default {2}Created\n Container web-web-1 {2}Creating\n/,
      )
      expect(yield* stateOf("ListStacks", "web")).toBe("running")
    }),
  )

  it.scopedLive("a pull is git's and compose's pull alone; a service a stack lacks fails its one-off run", () =>
    Effect.gen(function* () {
      const { run } = yield* sandboxOf()
      const pull = yield* run("PullStack", { stack: "monitoring" })
      expect(pull.logs.map((l: Any) => l.stage)).toEqual([
        "Set git remote",
        "Checkout branch",
        "Git pull",
        "Latest Commit",
        "Compose Pull",
      ])
      // The registry holds a newer grafana: its layers come down.
      expect(pull.logs.at(-1).stderr).toMatch(
        /^ prometheus Pulling\n prometheus Pulled\n grafana Pulling\n ([0-9a-f]{12}) Pulling fs layer\n \1 Download complete\n \1 Pull complete\n grafana Pulled$/,
      )
      const oneOff = yield* run("RunStackService", { stack: "web", service: "nope", command: ["ls"] })
      expect(oneOff.success).toBe(false)
      expect(stagesOf(oneOff)).toEqual([
        [
          "Compose Run",
          "cd /etc/komodo/stacks/web && docker compose -p web -f compose.yaml run --rm nope ls",
          "",
          "no such service: nope",
          false,
        ],
      ])
    }),
  )
})

describe("the sandbox's deployments, as docker runs them", () => {
  it.scopedLive("docker run with the config's flags answers the container's id; pull, stop and rm say theirs", () =>
    Effect.gen(function* () {
      const { sandbox, ok, run, stateOf } = yield* sandboxOf()
      yield* ok("write/UpdateDeployment", {
        id: "api",
        config: { ports: "8080:8080", environment: "# the key\nAPI_SIGNING_KEY=abc\nMODE='prod'", labels: "team=core" },
      })
      const deploy = yield* run("Deploy", { deployment: "api" })
      const prod1 = sandbox.world.store.find("server", "prod-01")
      const id = sandbox.world.containersOn(prod1).find((c) => c.name === "api")?.id
      expect(id).toMatch(/^[0-9a-f]{64}$/)
      expect(stagesOf(deploy)).toEqual([
        [
          "Docker Run",
          'docker run -d --name api --network bridge -p 8080:8080 --env API_SIGNING_KEY="abc" --env MODE=\'prod\' --restart unless-stopped --label team="core" ghcr.io/acme/api:1.4.2',
          id,
          "",
          true,
        ],
      ])
      const pull = yield* run("PullDeployment", { deployment: "api" })
      expect(pull.logs[0].command).toBe("docker pull ghcr.io/acme/api:1.4.2")
      expect(pull.logs[0].stdout).toMatch(
        /^1\.4\.2: Pulling from acme\/api\nDigest: sha256:[0-9a-f]{64}\nStatus: Image is up to date for ghcr\.io\/acme\/api:1\.4\.2\nghcr\.io\/acme\/api:1\.4\.2$/,
      )
      const stop = yield* run("StopDeployment", { deployment: "api", time: 30 })
      expect(stagesOf(stop)).toEqual([["Docker Stop", "docker stop --signal SIGTERM --time 30 api", "api", "", true]])
      expect(yield* stateOf("ListDeployments", "api")).toBe("exited")
      const destroy = yield* run("DestroyDeployment", { deployment: "api" })
      expect(stagesOf(destroy)).toEqual([
        [
          "Docker Stop and Remove",
          "docker stop --signal SIGTERM --time 10 api && docker container rm api",
          "api\napi",
          "",
          true,
        ],
      ])
      // Nothing left to start: docker's error, and the deployment stays as it was.
      const start = yield* run("StartDeployment", { deployment: "api" })
      expect(start.success).toBe(false)
      expect(stagesOf(start)).toEqual([
        [
          "Docker Start",
          "docker start api",
          "",
          "Error response from daemon: No such container: api\nError: failed to start containers: api",
          false,
        ],
      ])
      expect(yield* stateOf("ListDeployments", "api")).toBe("not_deployed")
    }),
  )

  it.scopedLive("the same two runs in a row (on a scenario's clock): the same stages, commands and output", () =>
    Effect.gen(function* () {
      const once = Effect.gen(function* () {
        const { run } = yield* sandboxOf({ scenario: "incident" })
        const all = []
        for (const [operation, params] of [
          ["DeployStack", { stack: "monitoring" }],
          ["StopStack", { stack: "web" }],
          ["Deploy", { deployment: "docs" }],
          ["PullDeployment", { deployment: "docs" }],
        ] as const) {
          all.push(stagesOf(yield* run(operation, params)))
        }
        return all
      })
      const first = yield* Effect.scoped(once)
      expect(yield* Effect.scoped(once)).toEqual(first)
    }),
  )
})

describe("the incident's deploys", () => {
  it.scopedLive(
    "the crash-looping deploy succeeded as docker run; a redeploy restarts; the previous tag is clean",
    () =>
      Effect.gen(function* () {
        const { ok, run, stateOf } = yield* sandboxOf({ scenario: "incident" })
        const updates = (yield* ok("read/ListUpdates", {})).updates
        const recorded = yield* ok("read/GetUpdate", {
          id: updates.find((u: Any) => u.operation === "Deploy").id,
        })
        // The run itself succeeded: the container exits afterwards, which its logs tell, not the Update.
        expect(recorded.success).toBe(true)
        expect(stagesOf(recorded)).toEqual([
          [
            "Docker Run",
            "docker run -d --name api --network bridge --restart unless-stopped ghcr.io/acme/api:1.5.0",
            expect.stringMatching(/^[0-9a-f]{64}$/),
            "",
            true,
          ],
        ])
        const again = yield* run("Deploy", { deployment: "api" })
        expect(again.success).toBe(true)
        expect(again.logs.map((l: Any) => l.stage)).toEqual(["Docker Run"])
        expect(yield* stateOf("ListDeployments", "api")).toBe("restarting")
        const log = yield* ok("read/GetDeploymentLog", { deployment: "api" })
        expect(log.stdout).toContain("Error: missing required setting API_SIGNING_KEY")

        yield* ok("write/UpdateDeployment", {
          id: "api",
          config: { image: { type: "Image", params: { image: "ghcr.io/acme/api:1.4.2" } } },
        })
        const rollback = yield* run("Deploy", { deployment: "api" })
        expect(stagesOf(rollback)).toEqual([
          [
            "Docker Run",
            "docker run -d --name api --network bridge --restart unless-stopped ghcr.io/acme/api:1.4.2",
            expect.stringMatching(/^[0-9a-f]{64}$/),
            "",
            true,
          ],
        ])
        // Each deploy makes a new container: the one docker run answered is the one the deployment runs now.
        const id = rollback.logs[0].stdout
        expect([recorded.logs[0].stdout, again.logs[0].stdout]).not.toContain(id)
        expect((yield* ok("read/GetDeploymentContainer", { deployment: "api" })).container.id).toBe(id)
        expect(yield* stateOf("ListDeployments", "api")).toBe("running")
      }),
  )

  it.scopedLive("on unreachable staging-01: a deploy's own stage, the service's Task Error for the others", () =>
    Effect.gen(function* () {
      const { run } = yield* sandboxOf({ scenario: "incident" })
      const error = lines(
        "ERROR: Failed to reach the agent on server staging-01",
        "",
        "TRACE:",
        "\t1: request to https://10.0.2.21:8120 failed",
        "\t2: error sending request for url (https://10.0.2.21:8120/): operation timed out",
      )
      const deploy = yield* run("Deploy", { deployment: "legacy-cron" })
      expect(deploy.success).toBe(false)
      expect(stagesOf(deploy)).toEqual([["Deploy Container", "", "", error, false]])
      const stack = yield* run("DeployStack", { stack: "staging-web" })
      expect(stagesOf(stack)).toEqual([["Task Error", "", "", error, false]])
    }),
  )
})
