/**
 * The params as an audit line records them: every value that may be a secret
 * as a digest of it, never in clear, so that an auditor can tell two values
 * apart (or the same value set twice) without reading either. A value is taken
 * for a secret when the service's definitions name its field as one (a
 * credential-named field, a swarm secret's `data`), when the masking rules
 * find a credential in it, and, for a variable, unless the same request says
 * it is not secret (`is_secret: false`): a variable's new value is written
 * with its name alone, and whether it is secret is the service's to know.
 */
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { canonicalJson } from "../Confirmation/Canonical.js"
import { isObject } from "../Shared/JsonShape.js"
import { isSecretParam } from "../Tools/Bounds/SecretParams.js"
import { PLACEHOLDER } from "../Tools/Params/FromPerson.js"
import { mask } from "../Untrusted/Mask.js"
import type { AuditLog } from "./AuditLog.js"

const Crypto = () => process.getBuiltinModule("node:crypto")

/** `body` with each secret string as `digest(value)`; everything else as it was. */
export const recorded = (endpoint: string | undefined, body: unknown, digest: (value: string) => string): unknown => {
  const walk = (value: unknown, top: boolean): unknown => {
    if (typeof value === "string") return value !== "" && mask(value) !== value ? digest(value) : value
    if (Array.isArray(value)) return value.map((item) => walk(item, false))
    if (!isObject(value)) return value
    // fromEntries, not assignment: a key named "__proto__" stays an own field.
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [
        key,
        // A value the person gives on a form is recorded as its placeholder: the call's record never holds it.
        typeof field === "string" && field !== "" && field !== PLACEHOLDER && isSecretParam(endpoint, value, key, top)
          ? digest(field)
          : walk(field, false),
      ]),
    )
  }
  return walk(body, true)
}

/**
 * The params' digest: of the params as sent, keyed with SVC_AUDIT_KEY so that it says nothing
 * of a secret in them; without the key, of the params as logged (redacted).
 */
export const digestOf = (log: AuditLog, sent: unknown, logged: unknown): string =>
  Option.match(log.digestKey, {
    onNone: () => `sha256:${Crypto().createHash("sha256").update(canonicalJson(logged)).digest("base64url")}`,
    onSome: (key) =>
      `hmac-sha256:${Crypto().createHmac("sha256", Redacted.value(key)).update(canonicalJson(sent)).digest("base64url")}`,
  })
