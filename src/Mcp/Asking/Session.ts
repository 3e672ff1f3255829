/**
 * The `Mcp-Session-Id` a 2025-era client gets over HTTP at `initialize`: a
 * signed token, kept by no one but the client, that carries what the client
 * said there (its revision, whether it answers elicitation) and a random
 * nonce. HTTP stays stateless: any replica that holds the key (SVC_MCP_STATE_KEY,
 * else this process's own) reads it back on each later POST.
 *
 * It is never an authority: a request is authenticated by its credentials or
 * sign-in as before, and the token is bound to the whole credential that
 * initialized (a keyed digest of the principal, the keys and secrets the
 * request brought, and SVC_MCP_TOKEN), so one presented with anything else, a
 * key's other secret or after the token changed, opens no session. It ends a
 * while after its initialize (SVC_MCP_SESSION_LIFETIME), and its signature has
 * one spelling only.
 * What it is for: naming the caller of the guard's window where several people
 * share credentials and an address, seeding each POST's server with the
 * client's capabilities so that it can be asked, and binding the questions
 * and cancellations of a POST to the client that sent it.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as CallContext from "../../Call/Context.js"
import { fingerprint } from "../../Callers/RefusedKeys.js"

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
  /** The token for a client that initialized with these capabilities, with this `credential` (`credentialOf`). */
  readonly issue: (credential: string, version: string, capabilities: unknown) => string
  /** The session a token names, when this key signed it for this `credential` and it has not expired; else none. */
  readonly open: (token: string, credential: string) => Option.Option<Session>
}

/**
 * The whole credential a request brings, as a session is bound to it: who it is (the binding
 * principal), every caller key with its secret (a digest of each), and the server's token's
 * digest (`serverToken`, empty without one), so that the same key with another secret, or any
 * request after SVC_MCP_TOKEN changed, is another credential.
 */
export const credentialOf = (context: CallContext.CallContext, serverToken: string): string => {
  const { credentials } = context
  const keys =
    credentials._tag === "Caller"
      ? [fingerprint(credentials.caller.key, credentials.caller.secret)]
      : credentials._tag === "PerService"
        ? [...credentials.callers.entries()]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([service, caller]) => `${service}=${fingerprint(caller.key, caller.secret)}`)
        : []
  return JSON.stringify([CallContext.bindingPrincipalOf(context), keys, serverToken])
}

const PREFIX = "s1."

/** The elicitation capability, if declared as an object of modest size (it rides in every request's header). */
const elicitationOf = (capabilities: unknown): Readonly<Record<string, unknown>> | undefined => {
  if (typeof capabilities !== "object" || capabilities === null) return undefined
  const declared = (capabilities as { elicitation?: unknown }).elicitation
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) return undefined
  return JSON.stringify(declared).length <= 200 ? (declared as Record<string, unknown>) : { form: {} }
}

/** How far ahead of this replica's clock another's issue time may be (clocks differ a little). */
const SKEW_MS = 60_000

export interface Options {
  /** How long a token is honoured after its initialize. */
  readonly lifetimeMs: number
  readonly now?: () => number
}

/** Sessions signed with a key derived from `key`, so that no other use of that key's MACs can pass for a token. */
export const make = (key: Redacted.Redacted<Uint8Array>, { lifetimeMs, now = Date.now }: Options): Sessions => {
  const derived = createHmac("sha256", Redacted.value(key)).update("svc-mcp session id").digest()
  // The signature's one spelling: base64url of 16 bytes, unpadded, compared as text (a decoder
  // takes padding, stray characters and the last character's spare bits, many spellings of one MAC).
  const mac = (payload: string) =>
    Buffer.from(createHmac("sha256", derived).update(payload).digest("base64url").slice(0, 22))
  // Keyed: the token is readable by its client, and a plain digest of a secret could be guessed at.
  const bound = (credential: string) =>
    createHmac("sha256", derived).update("credential\u0000").update(credential).digest("base64url").slice(0, 22)
  return {
    issue: (credential, version, capabilities) => {
      const elicitation = elicitationOf(capabilities)
      const payload = Buffer.from(
        JSON.stringify({
          n: randomBytes(12).toString("base64url"),
          p: bound(credential),
          t: Math.floor(now() / 1000),
          v: version,
          ...(elicitation === undefined ? {} : { e: elicitation }),
        }),
      ).toString("base64url")
      return `${PREFIX}${payload}.${mac(payload).toString("utf8")}`
    },
    open: (token, credential) => {
      if (!token.startsWith(PREFIX) || token.length > 1024) return Option.none()
      const [payload, signature, extra] = token.slice(PREFIX.length).split(".")
      if (payload === undefined || signature === undefined || extra !== undefined) return Option.none()
      const given = Buffer.from(signature, "utf8")
      const expected = mac(payload)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Option.none()
      try {
        const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
          n?: unknown
          p?: unknown
          t?: unknown
          v?: unknown
          e?: unknown
        }
        if (typeof parsed.n !== "string" || typeof parsed.v !== "string") return Option.none()
        if (parsed.p !== bound(credential)) return Option.none()
        const issued = typeof parsed.t === "number" ? parsed.t * 1000 : Number.NaN
        const at = now()
        if (!(issued <= at + SKEW_MS && at - issued < lifetimeMs)) return Option.none()
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
