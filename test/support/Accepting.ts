/**
 * The SDK v2 client of a user who accepts every confirmation: it declares
 * elicitation, answers each question with accept, and keeps the questions.
 */
import { Client } from "@modelcontextprotocol/client"

/** `modern`: 2026-07-28 when the server speaks it; `legacy`: 2025-11-25 after `initialize`. */
export type Era = "modern" | "legacy"

export const accepting = (name: string, era: Era) => {
  const client = new Client(
    { name, version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === "modern" ? { versionNegotiation: { mode: "auto" as const } } : {}),
    },
  )
  const asked: Array<string> = []
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params.message)
    return { action: "accept", content: {} }
  })
  return { client, asked }
}
