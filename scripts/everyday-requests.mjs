/**
 * Twenty-one everyday requests of an operator, as the calls an assistant makes
 * for them on the sandbox's small estate, in order: the replay that
 * `npm run answer-sizes` measures (what the assistant reads, by default and
 * with every answer whole). Changes come in the order an operator asks them,
 * so that each call finds the estate as the ones before left it; the selectors
 * `SVC_REACH=all` adds (stats, alerts, a resource's tags) are among them.
 */

const wait = (operation, params) => ({ tool: "svc_execute", args: { operation, params, wait: true } })

export const REQUESTS = [
  {
    request: "Is any server under memory pressure?",
    calls: [
      { tool: "svc_list", args: { resource_type: "server" } },
      { tool: "svc_get", args: { resource_type: "system_stats", params: { server: "prod-02" } } },
    ],
  },
  {
    request: "How full was prod-02's disk over the last hour?",
    calls: [
      {
        tool: "svc_list_detail",
        args: { list_type: "historical_server_stats", params: { server: "prod-02", granularity: "5-min" } },
      },
    ],
  },
  { request: "Which stacks are running, and where?", calls: [{ tool: "svc_list", args: { resource_type: "stack" } }] },
  {
    request: "How is the web stack doing?",
    calls: [{ tool: "svc_get", args: { resource_type: "stack", params: { stack: "web" } } }],
  },
  {
    request: "Show me the web stack's worker logs.",
    calls: [{ tool: "svc_logs", args: { resource_type: "stack", params: { stack: "web", services: ["worker"] } } }],
  },
  { request: "Deploy staging-web.", calls: [wait("deploy_stack", { stack: "staging-web" })] },
  {
    request: "Does staging-web run now, after its deploy?",
    calls: [{ tool: "svc_get", args: { resource_type: "stack", params: { stack: "staging-web" } } }],
  },
  {
    request: "Is anything deploying or restarting right now?",
    calls: [{ tool: "svc_list_detail", args: { list_type: "updates", params: { query: { status: "InProgress" } } } }],
  },
  {
    request: "Where is the web stack's compose file?",
    calls: [{ tool: "svc_get", args: { resource_type: "stack", params: { stack: "web" } } }],
  },
  {
    request: "Which containers run on prod-01?",
    calls: [{ tool: "svc_list_detail", args: { list_type: "containers", params: { server: "prod-01" } } }],
  },
  {
    request: "Create a tag named canary.",
    calls: [{ tool: "svc_create", args: { resource_type: "tag", params: { name: "canary", color: "Orange" } } }],
  },
  {
    request: "Put the canary tag on the docs deployment.",
    calls: [
      {
        tool: "svc_update",
        args: {
          resource_type: "resource_meta",
          params: { target: { type: "Deployment", id: "docs" }, tags: ["production", "canary"] },
        },
      },
      { tool: "svc_get", args: { resource_type: "deployment", params: { deployment: "docs" } } },
    ],
  },
  {
    request: "Rename the docs-image build to docs-site-image.",
    calls: [
      { tool: "svc_rename", args: { resource_type: "build", params: { id: "docs-image", name: "docs-site-image" } } },
    ],
  },
  {
    request: "Run the release procedure.",
    calls: [
      { tool: "svc_get", args: { resource_type: "procedure", params: { procedure: "release" } } },
      wait("run_procedure", { procedure: "release" }),
    ],
  },
  { request: "Which variables are set?", calls: [{ tool: "svc_list", args: { resource_type: "variable" } }] },
  { request: "Stop staging-web.", calls: [wait("stop_stack", { stack: "staging-web" })] },
  { request: "Prune unused images on staging-01.", calls: [wait("run_server_prune_images", { server: "staging-01" })] },
  { request: "Restart the api deployment.", calls: [wait("restart_deployment", { deployment: "api" })] },
  { request: "Which alerts are open?", calls: [{ tool: "svc_list", args: { resource_type: "alert" } }] },
  {
    request: "What would estate-sync change?",
    calls: [{ tool: "svc_get", args: { resource_type: "sync_resource", params: { sync: "estate-sync" } } }],
  },
  {
    request: "Delete the canary tag.",
    calls: [{ tool: "svc_delete", args: { resource_type: "tag", params: { id: "canary" } } }],
  },
]

/**
 * Requests that need the whole service (`SVC_REACH=all`): alerts, a resource's meta, permissions,
 * service users, a cache's refresh, a sync's commit, an export. Replayed after the everyday ones,
 * on a sandbox of their own, so that each finds the estate as the ones before it here left it.
 */
export const WHOLE_SERVICE = [
  { request: "What is each open alert about?", calls: [{ tool: "svc_list", args: { resource_type: "alert" } }] },
  {
    request: "Tag the api deployment release and say what it is for.",
    calls: [
      { tool: "svc_create", args: { resource_type: "tag", params: { name: "release", color: "Green" } } },
      {
        tool: "svc_update",
        args: {
          resource_type: "resource_meta",
          params: { target: { type: "Deployment", id: "api" }, tags: ["release"], description: "the public API" },
        },
      },
    ],
  },
  {
    request: "Which users are there, and what may I do?",
    calls: [
      { tool: "svc_list", args: { resource_type: "user" } },
      { tool: "svc_list_detail", args: { list_type: "permissions" } },
    ],
  },
  {
    request: "Create a service user for CI.",
    calls: [
      {
        tool: "svc_create",
        args: { resource_type: "service_user", params: { username: "ci-bot", description: "builds and deploys" } },
      },
    ],
  },
  {
    request: "Let ci-bot deploy the web stack.",
    calls: [
      {
        tool: "svc_update",
        args: {
          resource_type: "permission_on_target",
          params: {
            user_target: { type: "User", id: "ci-bot" },
            resource_target: { type: "Stack", id: "web" },
            permission: "Execute",
          },
        },
      },
    ],
  },
  {
    request: "Is the web stack's repository ahead of what runs?",
    calls: [{ tool: "svc_execute", args: { operation: "refresh_stack_cache", params: { stack: "web" } } }],
  },
  {
    request: "Which stacks have a newer image?",
    calls: [{ tool: "svc_execute", args: { operation: "batch_check_stack_for_update", params: { pattern: "*" } } }],
  },
  {
    request: "Let estate-sync write to its repository, and commit the estate to it.",
    calls: [
      { tool: "svc_get", args: { resource_type: "sync_resource", params: { sync: "estate-sync" } } },
      {
        tool: "svc_update",
        args: { resource_type: "sync_resource", params: { id: "estate-sync", config: { managed: true } } },
      },
      wait("commit_sync", { sync: "estate-sync" }),
    ],
  },
  {
    request: "Export the web stack as TOML.",
    calls: [
      {
        tool: "svc_get",
        args: { resource_type: "resources_toml", params: { targets: [{ type: "Stack", id: "web" }] } },
      },
    ],
  },
  { request: "Which version is the core?", calls: [{ tool: "svc_get", args: { resource_type: "version" } }] },
]

/** The tools that take `fields`: with `["*"]`, each answers whole, as before answers came at a glance. */
const TAKE_FIELDS = new Set(["svc_list", "svc_get", "svc_execute", "svc_summary", "svc_inspect", "svc_list_detail"])

/**
 * The replay of `requests` (the everyday ones by default) on a fresh sandbox (`connect()` gives a
 * client of one): each call's text content, by request. `whole` asks each call that takes
 * `fields` with `fields: ["*"]`.
 */
export const replay = async (connect, whole, requests = REQUESTS) => {
  const client = await connect()
  const answers = []
  try {
    for (const { request, calls } of requests) {
      const texts = []
      for (const { tool, args } of calls) {
        const asked = whole && TAKE_FIELDS.has(tool) ? { ...args, fields: ["*"] } : args
        const result = await client.callTool({ name: tool, arguments: asked })
        const text = result.content.map((part) => part.text ?? "").join("\n")
        if (result.isError) throw new Error(`${request} ${tool} ${JSON.stringify(asked)} failed: ${text}`)
        texts.push(text)
      }
      answers.push({ request, texts })
    }
  } finally {
    await client.close()
  }
  return answers
}
