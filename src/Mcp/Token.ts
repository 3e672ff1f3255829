/**
 * SVC_MCP_TOKEN: the Bearer token every /mcp request carries when it is set,
 * compared in constant time, through the SDK's bearer check (so its challenge
 * is the SDK's).
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { OAuthError, OAuthErrorCode, requireBearerAuth } from "@modelcontextprotocol/server"
import * as Option from "effect/Option"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares in constant time: hashing first makes the lengths equal too. */
const sameToken = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected))

/** SVC_MCP_TOKEN's check, when it is set: the Bearer token, compared in constant time. */
export const check = (token: Option.Option<string>) =>
  Option.map(token, (expected) =>
    requireBearerAuth({
      verifier: {
        verifyAccessToken: async (given) => {
          if (!sameToken(given, expected)) {
            throw new OAuthError(OAuthErrorCode.InvalidToken, "the Bearer token is not SVC_MCP_TOKEN")
          }
          // The token does not expire; the SDK wants to know until when it holds.
          return { token: given, clientId: "svc-mcp", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 }
        },
      },
    }),
  )
