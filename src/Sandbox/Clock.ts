/**
 * The clock of a scenario other than `calm`: it starts at the same moment each
 * run, so that the scenario's ids, times and logs are the same two runs in a row.
 */

/** The moment a scenario's clock starts at: a weekday morning. */
export const START = Date.UTC(2026, 2, 17, 7, 42, 0)

/**
 * A clock held still while a scenario is set up (each event at the time it
 * gives), then running from `START` at the pace of the real one.
 */
export class Clock {
  private held: number | undefined = START
  private since = 0

  readonly now = (): number => (this.held === undefined ? START + (Date.now() - this.since) : this.held)

  /** Holds the clock at `ts` (during set-up). */
  at(ts: number): void {
    this.held = ts
  }

  /** Lets the clock run, from `START`. */
  run(): void {
    this.held = undefined
    this.since = Date.now()
  }
}
