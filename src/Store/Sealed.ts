/**
 * What the store keeps that must not be read there as it is (a key minted for
 * a person, with its secret): sealed with AES-256-GCM under a key derived from
 * the replicas' shared state key (HKDF-SHA256), each value bound to the name it
 * is kept under, so that a sealed value copied to another name does not open.
 * Without the state key, what the store holds cannot be read, nor made.
 */
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

const Crypto = () => process.getBuiltinModule("node:crypto")

const PREFIX = "g1."
const IV_BYTES = 12
const TAG_BYTES = 16

export interface Sealing {
  readonly seal: (text: string, label: string) => string
  readonly open: (sealed: string, label: string) => Option.Option<string>
}

export const make = (stateKey: Redacted.Redacted<Uint8Array>): Sealing => {
  const key = Buffer.from(
    Crypto().hkdfSync("sha256", Redacted.value(stateKey), Buffer.alloc(0), "svc-mcp store seal", 32),
  )
  return {
    seal: (text, label) => {
      const iv = Crypto().randomBytes(IV_BYTES)
      const cipher = Crypto().createCipheriv("aes-256-gcm", key, iv)
      cipher.setAAD(Buffer.from(label, "utf8"))
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final(), cipher.getAuthTag()])
      return `${PREFIX}${iv.toString("base64url")}.${body.toString("base64url")}`
    },
    open: (sealed, label) => {
      if (!sealed.startsWith(PREFIX)) return Option.none()
      const [iv, body] = sealed.slice(PREFIX.length).split(".")
      if (iv === undefined || body === undefined) return Option.none()
      try {
        const ivBytes = Buffer.from(iv, "base64url")
        const bytes = Buffer.from(body, "base64url")
        if (ivBytes.length !== IV_BYTES || bytes.length < TAG_BYTES) return Option.none()
        // One spelling: base64url that decodes the same with spare bits set or stray characters is refused.
        if (ivBytes.toString("base64url") !== iv || bytes.toString("base64url") !== body) return Option.none()
        const decipher = Crypto().createDecipheriv("aes-256-gcm", key, ivBytes)
        decipher.setAAD(Buffer.from(label, "utf8"))
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
        const text = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()])
        return Option.some(text.toString("utf8"))
      } catch {
        return Option.none()
      }
    },
  }
}
