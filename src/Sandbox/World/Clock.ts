/**
 * A scenario's clock: every time the sandbox answers is read from it. `calm`
 * starts at the moment the sandbox does; another scenario at the same moment
 * each run, so that its ids, times and logs are the same two runs in a row.
 */

/** The moment a scenario other than `calm` starts at: a weekday morning. */
export const START = Date.UTC(2026, 2, 17, 7, 42, 0)

const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/**
 * A clock held still while a scenario is set up (each event at the time it
 * gives), then running from `start` at the pace of the real one.
 */
export class Clock {
  private held: number | undefined
  private since = 0

  constructor(readonly start: number = START) {
    this.held = start
  }

  readonly now = (): number => (this.held === undefined ? this.start + (Date.now() - this.since) : this.held)

  /** Holds the clock at `ts` (during set-up). */
  at(ts: number): void {
    this.held = ts
  }

  /** Lets the clock run, from `start`. */
  run(): void {
    this.held = undefined
    this.since = Date.now()
  }
}
