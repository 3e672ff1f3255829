/**
 * What the audit log keeps of signed-in people beside their calls: each refusal
 * of a person whose token was verified (a scope their token lacks, no entry in
 * the identities file, revoked, no key that could be minted), and each
 * revocation of a person's minted keys (`svc-mcp people revoke`, or a reload
 * that removed or changed their entry). Each is a record alone, nothing sent.
 * A line that cannot be written is logged, and the refusal stands.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Audit, type AuditEntry } from "./AuditLog.js"

const written = (entry: AuditEntry) =>
  Effect.flatMap(Audit, (audit) =>
    Option.match(audit, {
      onNone: () => Effect.void,
      onSome: (log) =>
        log
          .write(entry)
          .pipe(Effect.catchAll((error) => Effect.logWarning(`the audit line of ${entry.tool}: ${error.message}`))),
    }),
  )

/** A signed-in person's request refused at the gate, before anything reached the service. */
export interface GateRefusal {
  /** The identity, when the token named one (`oauth:<name>`); the issuer and subject otherwise. */
  readonly who: string
  readonly status: number
  /** `Forbidden`, `InsufficientScope` or `Unavailable`. */
  readonly kind: string
  readonly reason: string
  /** The tool the request called, when it called one. */
  readonly tool?: string
  /** The service user the person's calls act as, where one is minted for them. */
  readonly acting?: string
}

export const refusal = (refused: GateRefusal): Effect.Effect<void> =>
  written({
    time: new Date().toISOString(),
    caller: "server",
    who: refused.who,
    ...(refused.acting === undefined ? {} : { acting: refused.acting }),
    tool: refused.tool ?? "sign-in",
    outcome: "refused",
    sent: false,
    kind: refused.kind,
    status: refused.status,
    reason: refused.reason,
    durationMs: 0,
  })

/** A person's minted keys revoked: by whom (the `people revoke` command, or a reload), and what it did. */
export interface Revocation {
  readonly person: string
  readonly username: string
  readonly keys: number
  readonly disabled: boolean
  readonly by: "svc-mcp people revoke" | "SVC_MCP_IDENTITIES reload"
}

export const revocation = (revoked: Revocation): Effect.Effect<void> =>
  written({
    time: new Date().toISOString(),
    caller: "server",
    who: `oauth:${revoked.person}`,
    acting: revoked.username,
    tool: revoked.by,
    outcome: "ok",
    reason: `revoked ${revoked.keys} minted key(s)${revoked.disabled ? "; the service user is disabled" : ""}`,
    durationMs: 0,
  })

/** A revocation a reload of SVC_MCP_IDENTITIES made. */
export const onReload = (revoked: Omit<Revocation, "by">): Effect.Effect<void> =>
  revocation({ ...revoked, by: "SVC_MCP_IDENTITIES reload" })
