/**
 * What changes who may do what, as data, and the readers SVC_ACCESS_CHANGES
 * keeps it away with: the endpoints that make, change or remove users, user
 * groups, permissions and keys; a sync's file text that declares user groups
 * (and the permissions they carry); a sync's pending plan that changes them.
 * The policy refuses the endpoints before anything is sent (Policy.ts, with
 * AccessEndpoints.ts, which a start loads); a sync's file writes, its run or
 * commit, and a procedure's whose stages run a sync, are refused by the call's
 * program (Invoke.ts), the last on the sync's plan, read whole just before (SyncRuns.ts).
 */
import * as Effect from "effect/Effect"
import type { ServerSettingsShape } from "../../Settings/ToolSettings.js"
import { isObject } from "../../Shared/JsonShape.js"
import type { PatternReader } from "../../Shared/PatternReader.js"
import type { SvcClientShape } from "../../SvcClient.js"
import * as TomlRead from "../Sync/TomlRead.js"
import { accessWords, type CallerAccess } from "./AccessEndpoints.js"
import { runRefusal } from "./SyncRuns.js"

/** The endpoints whose params carry a sync's file text, and where. */
const SYNC_TEXTS: Readonly<Record<string, ReadonlyArray<ReadonlyArray<string>>>> = {
  WriteSyncFileContents: [["contents"]],
  CreateResourceSync: [["config", "file_contents"]],
  UpdateResourceSync: [["config", "file_contents"]],
}

const GROUP = "user_group"

/**
 * The user groups a sync's file text declares, by name (`(unnamed)` where it names none), as a
 * TOML 1.0 parser reads the text: in every form TOML allows (`[[user_group]]`, a quoted or escaped
 * key, an inline array on one line or several), and nowhere else (a line of a string or of an
 * array that looks like a header is no header). A text the parser cannot read is `Unread`.
 */
export const declaredGroups = (text: string): ReadonlyArray<string> | { readonly unread: string } => {
  const read = TomlRead.read(text)
  if (read._tag === "Unread") return { unread: read.reason }
  return TomlRead.tablesAt(read.table, GROUP).map((group) =>
    typeof group.name === "string" && group.name !== "" ? group.name : "(unnamed)",
  )
}

const at = (value: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), value)

/** A name from a sync's files or record as a refusal shows it: on one line, quoted, cut to a length. */
const quoted = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)

/**
 * Why a write of a sync's file text (`endpoint`, with `params`) is refused while access changes are
 * kept away: the user groups the text declares, named (quoted); or that it could not be read as TOML,
 * so what it declares is unknown.
 */
const writtenRefusal = (endpoint: string, params: unknown, words: string): string | undefined => {
  const groups: Array<string> = []
  for (const path of SYNC_TEXTS[endpoint] ?? []) {
    const text = at(params, path)
    if (typeof text !== "string") continue
    const declared = declaredGroups(text)
    if ("unread" in declared)
      return `the sync's file text could not be read as TOML (${declared.unread}), so whether it declares user groups is unknown: ${words}`
    groups.push(...declared.map(quoted))
  }
  return groups.length === 0
    ? undefined
    : `the sync's file text declares the user groups ${listed(groups)}, which a run would apply: ${words}`
}

/** A list of what a refusal names: the first few, and how many more. */
const listed = (items: ReadonlyArray<string>, shown = 5): string =>
  `${items.slice(0, shown).join(", ")}${items.length > shown ? ` and ${items.length - shown} more` : ""}`

/** The settings a call's program reads to keep access changes away (Invoke.ts). */
export interface AccessSettings extends Partial<Pick<ServerSettingsShape, "mode" | "accessChanges">>, CallerAccess {}

/**
 * Why a call is refused while access changes are kept away, if it is: a write of a sync's file text
 * (`endpoint`, with `params`) that declares user groups, naming them; or a sync's run or commit: its
 * pending plan, read whole just before, touches user groups. A procedure's run, or a batch's, is
 * refused so for each sync its stages run, through the procedures they run to any depth
 * (SyncRuns.ts), or where what they run cannot be read whole. An action's script is not read: for
 * a minted person, a procedure whose stages run one is refused.
 */
export const syncRefusal = (
  client: SvcClientShape,
  endpoint: string,
  params: Readonly<Record<string, unknown>>,
  settings: AccessSettings,
  variable: (name: string) => string,
): Effect.Effect<string | undefined, never, PatternReader> => {
  const words = accessWords({ mode: settings.mode ?? "full", ...settings }, variable)
  if (words === undefined) return Effect.succeed(undefined)
  const written = writtenRefusal(endpoint, params, words)
  if (written !== undefined) return Effect.succeed(written)
  // A sync's run or commit, or a procedure's (alone or in a batch) that runs one: on the plans they apply.
  return runRefusal(client, endpoint, params, words, settings.minted === true)
}
