/**
 * The `Mcp-Session-Id` a 2025-era client gets over HTTP at `initialize`: a
 * signed token, kept by no one but the client, that carries what the client
 * said there (its revision, whether it answers elicitation) and a random
 * nonce. HTTP stays stateless: any replica that holds the key (SVC_MCP_STATE_KEY,
 * else this process's own) reads it back on each later POST.
 *
 * It is never an authority: a request is authenticated by its credentials or
 * sign-in as before, and the token is bound to who initialized (the binding
 * principal's digest), so one presented by anyone else is no session at all.
 * What it is for: naming the caller of the guard's window where several people
 * share credentials and an address, seeding each POST's server with the
 * client's capabilities so that it can be asked, and binding the questions
 * and cancellations of a POST to the client that sent it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/** What a session token says of its client. */
export interface Session {
  /** Random, 96 bits: the session's name in the guard's window and in bindings. */
  readonly nonce: string
  /** The revision the client asked for at initialize. */
  readonly version: string
  /** The client's `elicitation` capability as it declared it; none when it declared none. */
  readonly elicitation: Option.Option<Readonly<Record<string, unknown>>>
}

export interface Sessions {
  /** The token for a client that initialized with these capabilities, as `principal`. */
  readonly issue: (principal: string, version: string, capabilities: unknown) => string
  /** The session a token names, when this key signed it for this `principal`; else none. */
  readonly open: (token: string, principal: string) => Option.Option<Session>
}

const PREFIX = "s1."

/** The elicitation capability, if declared as an object of modest size (it rides in every request's header). */
const elicitationOf = (capabilities: unknown): Readonly<Record<string, unknown>> | undefined => {
  if (typeof capabilities !== "object" || capabilities === null) return undefined
  const declared = (capabilities as { elicitation?: unknown }).elicitation
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) return undefined
  return JSON.stringify(declared).length <= 200 ? (declared as Record<string, unknown>) : { form: {} }
}

const principalDigest = (principal: string) => createHash("sha256").update(principal).digest("base64url").slice(0, 16)

/** Sessions signed with a key derived from `key`, so that no other use of that key's MACs can pass for a token. */
export const make = (key: Redacted.Redacted<Uint8Array>): Sessions => {
  const derived = createHmac("sha256", Redacted.value(key)).update("svc-mcp session id").digest()
  const mac = (payload: string) => createHmac("sha256", derived).update(payload).digest().subarray(0, 16)
  return {
    issue: (principal, version, capabilities) => {
      const elicitation = elicitationOf(capabilities)
      const payload = Buffer.from(
        JSON.stringify({
          n: randomBytes(12).toString("base64url"),
          p: principalDigest(principal),
          v: version,
          ...(elicitation === undefined ? {} : { e: elicitation }),
        }),
      ).toString("base64url")
      return `${PREFIX}${payload}.${mac(payload).toString("base64url")}`
    },
    open: (token, principal) => {
      if (!token.startsWith(PREFIX) || token.length > 1024) return Option.none()
      const [payload, signature, extra] = token.slice(PREFIX.length).split(".")
      if (payload === undefined || signature === undefined || extra !== undefined) return Option.none()
      const given = Buffer.from(signature, "base64url")
      const expected = mac(payload)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Option.none()
      try {
        const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
          n?: unknown
          p?: unknown
          v?: unknown
          e?: unknown
        }
        if (typeof parsed.n !== "string" || typeof parsed.v !== "string") return Option.none()
        if (parsed.p !== principalDigest(principal)) return Option.none()
        return Option.some({
          nonce: parsed.n,
          version: parsed.v,
          elicitation:
            typeof parsed.e === "object" && parsed.e !== null
              ? Option.some(parsed.e as Record<string, unknown>)
              : Option.none(),
        })
      } catch {
        return Option.none()
      }
    },
  }
}

/** A key of this process's own: its sessions end with it, and no other replica reads them. */
export const processKey = (): Redacted.Redacted<Uint8Array> => Redacted.make(new Uint8Array(randomBytes(32)))
