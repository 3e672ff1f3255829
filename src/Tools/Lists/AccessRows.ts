/**
 * The default answer of the lists of who may do what, as data, read as
 * Projections.ts's table is: permissions, API keys and onboarding keys. A
 * permission's row says who (a user or a group, by name), on what (a
 * resource's type and name), at which level; a key's row whose key it is, by
 * name. No column reads a key's secret: the service answers it only when the
 * key is made, and a row never shows one.
 */
const PERMISSION = [
  { label: "who", path: "user_target", target: true },
  { label: "on", path: "resource_target", target: true },
  { label: "level", path: "level" },
  { label: "specific", path: "specific" },
] as const
const API_KEY = [
  { label: "name", path: "name" },
  { label: "key", path: "key" },
  { label: "user", path: "user_id", name: "user" },
  { label: "created_at", path: "created_at" },
  { label: "expires", path: "expires" },
] as const

// Typed where Projections.ts spreads it into its table, which this module does not import.
export const ACCESS_PROJECTIONS = {
  "read/ListPermissions": { noun: "permissions", columns: PERMISSION, more: "_id.$oid" },
  "read/ListUserTargetPermissions": { noun: "permissions", columns: PERMISSION, more: "_id.$oid" },
  "read/ListApiKeys": { noun: "keys", columns: API_KEY },
  "read/ListApiKeysForServiceUser": { noun: "keys", columns: API_KEY },
  "read/ListOnboardingKeys": {
    noun: "keys",
    columns: [
      { label: "name", path: "name" },
      { label: "enabled", path: "enabled" },
      { label: "public_key", path: "public_key" },
      { label: "tags", path: "tags", name: "tag" },
      { label: "onboarded", path: "onboarded", name: "server" },
      { label: "expires", path: "expires" },
    ],
    more: "copy_server",
  },
} as const
