/**
 * The audit log's settings: SVC_AUDIT_LOG, a file to append to, or `-` for
 * stderr (unset or empty, nothing is audited); SVC_AUDIT_KEY, or the file
 * SVC_AUDIT_KEY_FILE names, the key its checkpoints are signed with
 * (HMAC-SHA256), which `svc-mcp audit verify` reads the same way;
 * SVC_AUDIT_MAX_BYTES, the size at which the server moves the file aside
 * itself (for a host with no logrotate).
 */

import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ConfigError, optional, optionalWith, read, refuse, secret } from "./Read.js"
import * as Setting from "./Setting.js"
import { MIN_KEY_BYTES } from "./Team.js"

export interface AuditSettings {
  /** Where audit lines go: a path, or `-` for stderr. */
  readonly destination: string
  readonly key: Option.Option<Redacted.Redacted<Uint8Array>>
  /** Move the file aside (to FILE.<time>) once it holds this many bytes; none: only SIGHUP rotates it. */
  readonly maxBytes: Option.Option<number>
}

/** Where audit lines go, or None for no audit log. */
const destination: Setting.Setting<Option.Option<string>> = Setting.map(
  optional("SVC_AUDIT_LOG"),
  Option.map((value) => value.trim()),
)

/** SVC_AUDIT_KEY: at least 32 bytes, as every HMAC key of the server. */
const key: Setting.Setting<Option.Option<Redacted.Redacted<Uint8Array>>> = Setting.mapOrFail(
  secret("SVC_AUDIT_KEY"),
  (given) => {
    if (Option.isNone(given)) return Either.right(Option.none())
    const bytes = Buffer.from(Redacted.value(given.value), "utf8")
    return bytes.length >= MIN_KEY_BYTES
      ? Either.right(Option.some(Redacted.make(new Uint8Array(bytes))))
      : Either.left(
          refuse(
            "SVC_AUDIT_KEY",
            `is ${bytes.length} bytes long, shorter than ${MIN_KEY_BYTES}`,
            "give at least 32 random bytes, e.g. the output of `openssl rand -base64 48`",
          ),
        )
  },
)

/** SVC_AUDIT_MAX_BYTES: a whole number of bytes, at least a megabyte's worth of lines apart. */
const maxBytes: Setting.Setting<Option.Option<number>> = optionalWith("SVC_AUDIT_MAX_BYTES", (text) => {
  const value = text.trim()
  const n = Number(value)
  return /^\d+$/.test(value) && Number.isSafeInteger(n) && n >= 4096
    ? Either.right(n)
    : Either.left(
        refuse(
          "SVC_AUDIT_MAX_BYTES",
          `is not a whole number of bytes of at least 4096 (${JSON.stringify(value)})`,
          "give e.g. SVC_AUDIT_MAX_BYTES=104857600 for 100 MB, or unset it and rotate with logrotate and SIGHUP",
        ),
      )
})

const config: Setting.Setting<Option.Option<AuditSettings>> = Setting.map(
  Setting.all({ destination, key, maxBytes }),
  ({ destination, key, maxBytes }) => Option.map(destination, (path) => ({ destination: path, key, maxBytes })),
)

export const load: Effect.Effect<Option.Option<AuditSettings>, ConfigError> = read(config)

/** The key alone, for `audit verify`. */
export const loadKey: Effect.Effect<Option.Option<Redacted.Redacted<Uint8Array>>, ConfigError> = read(key)
