/**
 * SVC_MCP_TOKEN: the Bearer token every /mcp request carries when it is set,
 * compared in constant time, through the SDK's bearer check (so its challenge
 * is the SDK's). It is checked on the request's headers, before its body is read.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { type AuthInfo, OAuthError, OAuthErrorCode, requireBearerAuth } from "@modelcontextprotocol/server"
import * as Option from "effect/Option"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares in constant time: hashing first makes the lengths equal too. */
const sameToken = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected))

/**
 * SVC_MCP_TOKEN's check, when it is set: the `Authorization` header's Bearer token, compared in
 * constant time; the AuthInfo the SDK's handler is given, or the SDK's challenge.
 */
export const check = (token: Option.Option<string>) =>
  Option.map(token, (expected) => {
    const bearer = requireBearerAuth({
      verifier: {
        verifyAccessToken: async (given) => {
          if (!sameToken(given, expected)) {
            throw new OAuthError(OAuthErrorCode.InvalidToken, "the Bearer token is not SVC_MCP_TOKEN")
          }
          // The token does not expire; the SDK wants to know until when it holds.
          return { token: given, clientId: "svc-mcp", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 }
        },
      },
    })
    // The SDK's check reads the header alone: it is given nothing else of the request.
    return (authorization: string | undefined): Promise<AuthInfo | Response> =>
      bearer({ headers: { get: () => authorization ?? null } } as unknown as Request)
  })

/** Whether `authorization` carries SVC_MCP_TOKEN (`Bearer <token>`), in constant time. */
export const carries = (token: string, authorization: string | undefined): boolean => {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization?.split(",")[0] ?? "")
  return match?.[1] !== undefined && sameToken(match[1], token)
}

/** What a session is bound to of SVC_MCP_TOKEN: a digest, so that a session ends when the token changes; empty without one. */
export const bindingOf = (token: Option.Option<string>): string =>
  Option.match(token, {
    onNone: () => "",
    onSome: (t) => digest(`svc-mcp session token\u0000${t}`).toString("base64url"),
  })
