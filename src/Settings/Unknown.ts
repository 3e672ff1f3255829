/**
 * No silent setting: a variable that begins with `SVC_` and that no setting reads is a typo
 * (SVC_MDOE) or a setting of another version, and the server would start as if it were unset,
 * `full` mode where `read-only` was meant. Each is named at start, with the setting nearest its
 * name, and by `check` as a warning. The names the server reads are the command line's one list
 * (Cli/Variables.ts), given here; among several services (SVC_SERVICES), each service's own forms
 * of them (SVC_PROD_MODE) are settings too.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { closest } from "../Shared/Closest.js"
import { namesSet } from "./Environment.js"
import { own } from "./Naming.js"
import * as Registry from "./Registry.js"

const PREFIX = "SVC_"

/** A variable set that no setting reads, and the setting it was likely meant to be. */
export interface Unknown {
  readonly name: string
  readonly guess: string | undefined
}

/** The most named: a flood of variables is no reason for a flood of lines. */
const MOST = 20

/** The settings, among `set`, that are none of `known` nor any service's own form of one. */
export const among = (
  set: ReadonlyArray<string>,
  known: ReadonlyArray<string>,
  services: ReadonlyArray<string> = [],
): ReadonlyArray<Unknown> => {
  const ours = known.filter((name) => name.startsWith(PREFIX))
  const all = new Set([...ours, ...services.flatMap((service) => ours.map((name) => own(service, name)))])
  return set
    .filter((name) => name.startsWith(PREFIX) && !all.has(name))
    .sort()
    .slice(0, MOST)
    .map((name) => ({ name, guess: closest(name, all) }))
}

/** What the start and `check` say of one. */
export const words = (unknown: Unknown): string =>
  unknown.guess === undefined
    ? `${unknown.name} is no setting of svc-mcp, and is ignored (svc-mcp --help lists them)`
    : `${unknown.name} is no setting; did you mean ${unknown.guess}?`

/**
 * The variables of this environment that no setting reads (the several services' names as
 * SVC_SERVICES gives them). None where the services cannot be read: the start then stops on that,
 * with its one line, and every service's own variable would be named wrongly.
 */
export const found = (known: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Unknown>> =>
  Effect.match(Registry.load, {
    onFailure: () => [],
    onSuccess: (services) =>
      among(
        namesSet(PREFIX),
        known,
        Option.getOrElse(services, () => []),
      ),
  })
