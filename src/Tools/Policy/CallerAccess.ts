/**
 * SVC_ACCESS_CHANGES's effective value for the caller of this call. The
 * server's policy (Policy.ts) is made once from the settings; a signed-in
 * person whose calls are sent with a key minted for them holds a grant that is
 * the most they may do, so for them access changes are kept away through
 * every path, in every mode: the endpoints that change users, groups,
 * permissions and keys; a sync's file text that declares user groups; a sync's
 * run or commit, or a procedure's, whose plan touches them; a batch of
 * procedures, whose matches are not read one by one; and an action's run, alone,
 * in a batch or as a procedure's stage, whose script acts with the service's own
 * credentials.
 */
import * as Effect from "effect/Effect"
import * as CallContext from "../../Call/Context.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
import type { SvcClientShape } from "../../SvcClient.js"
import { type AccessSettings, syncRefusal } from "./AccessChanges.js"
import { ACCESS_ENDPOINTS, MINTED_WORDS, UNREAD_RUNS } from "./AccessEndpoints.js"

/** The settings as they hold for a caller in `context`. */
const forCaller = (settings: AccessSettings, context: CallContext.CallContext): AccessSettings =>
  context.credentials._tag === "Minted" ? { ...settings, minted: true } : settings

/** Why the call is refused as an access change for its caller, if it is. */
export const refusal = (
  client: SvcClientShape,
  endpoint: string,
  params: Readonly<Record<string, unknown>>,
  settings: AccessSettings,
  variable: (name: string) => string,
): Effect.Effect<string | undefined, never, PatternReader> =>
  // The caller read with the context itself, not mapped from it: a step fewer on every call.
  Effect.flatMap(CallContext.get, (context) => {
    const own = forCaller(settings, context)
    const changes = own.minted === true ? (ACCESS_ENDPOINTS[endpoint] ?? UNREAD_RUNS[endpoint]) : undefined
    if (changes !== undefined) return Effect.succeed(`it ${changes}: ${MINTED_WORDS}`)
    return syncRefusal(client, endpoint, params, own, variable)
  })
