import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
const t = new StdioClientTransport({ command: process.execPath, args: ["/work/wt-glance/dist/svc-mcp.js", "--sandbox", "--estate", "large"], env: { PATH: process.env.PATH }, stderr: "pipe" })
const c = new Client({ name: "t", version: "1" })
await c.connect(t)
for (const rt of ["stack","deployment","server","build","repo","procedure","action","alerter","builder","sync_resource","swarm","tag","user","variable","user_group","git_provider_account","image_registry_account"]) {
  const sizes = []
  for (const fields of [undefined, ["*"]]) {
    const r = await c.callTool({ name: "svc_list", arguments: { resource_type: rt, ...(fields ? { fields } : {}) } })
    sizes.push(r.content[0].text.length)
  }
  console.log(rt, sizes, Math.round(100 - 100*sizes[0]/sizes[1]) + "% smaller")
}
await c.close()
