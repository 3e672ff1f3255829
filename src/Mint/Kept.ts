/**
 * The keys minting holds, one a person: in this process's memory (at most HELD_MAX people), and
 * with a shared store, sealed there with the state key (Store/Sealed.ts), never in clear, under a
 * name the store keys by the grant's scope and the person.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { StoreError, StoreShape } from "../Store/Shape.js"
import type { Held } from "./Shape.js"

/** The most people whose keys one process holds at once. */
const HELD_MAX = 10_000

/** The record kept in the store, sealed. */
const recordOf = (held: Held) => JSON.stringify({ ...held, secret: Redacted.value(held.secret) })

const heldOf = (text: string): Option.Option<Held> => {
  try {
    const value = JSON.parse(text) as Record<string, unknown>
    return typeof value.key === "string" && typeof value.secret === "string"
      ? Option.some({ ...(value as unknown as Held), secret: Redacted.make(value.secret) })
      : Option.none()
  } catch {
    return Option.none()
  }
}

type Memory = Map<string, { readonly held: Held; readonly sealed?: string }>

export class KeptKeys {
  readonly memory: Memory = new Map()

  constructor(
    readonly store: Option.Option<StoreShape>,
    readonly scope: string,
  ) {}

  /** Where the store is, for the words of a refusal while it does not answer. */
  get where(): string {
    return Option.match(this.store, { onNone: () => "", onSome: (s) => s.where })
  }

  /** The store's names of the person's key and of their minting's lock. */
  names(person: string) {
    const id = Option.match(this.store, {
      onNone: () => person,
      onSome: (s) => s.keyed(`${this.scope}\u0000${person}`),
    })
    return { record: `mint:${id}`, lock: `mint-lock:${id}` }
  }

  remember(person: string, held: Held, sealed?: string): void {
    if (this.memory.size >= HELD_MAX && !this.memory.has(person)) this.memory.clear()
    this.memory.set(person, sealed === undefined ? { held } : { held, sealed })
  }

  forget(person: string): Effect.Effect<void> {
    this.memory.delete(person)
    return Option.match(this.store, {
      onNone: () => Effect.void,
      onSome: (s) => Effect.ignore(s.remove(this.names(person).record)),
    })
  }

  /** The key the store holds for the person, opened (this process's copy while the sealed text is the same). */
  stored(person: string): Effect.Effect<Option.Option<Held>, StoreError> {
    if (Option.isNone(this.store)) return Effect.succeed(Option.fromNullable(this.memory.get(person)?.held))
    const s = this.store.value
    const { record } = this.names(person)
    return Effect.map(s.get(record), (sealed) => {
      if (Option.isNone(sealed)) return Option.none()
      const mine = this.memory.get(person)
      if (mine?.sealed === sealed.value) return Option.some(mine.held)
      const opened = Option.flatMap(s.open(sealed.value, record), heldOf)
      if (Option.isSome(opened)) this.remember(person, opened.value, sealed.value)
      return opened
    })
  }

  /** Keeps the new key: in memory, and sealed in the store. */
  keep(person: string, held: Held): Effect.Effect<void> {
    if (Option.isNone(this.store)) return Effect.sync(() => this.remember(person, held))
    const { record } = this.names(person)
    const sealed = this.store.value.seal(recordOf(held), record)
    this.remember(person, held, sealed)
    return Effect.ignore(this.store.value.set(record, sealed, held.expires - held.created))
  }
}
