/**
 * The service's limit on failed authentications: per client address, this many
 * failures within the window, and from then on every authenticated call from
 * that address is refused with 429 until the failures leave the window. Only
 * refusals of a guess count (a wrong key or password: 401), never a 500.
 */
import { ServiceFailure } from "../World/Store.js"

/** Failed authentications from one address that lock it out, within the window. */
const ATTEMPTS = 5

/** The service's window. */
export const WINDOW_MS = 15_000

export class RateLimiter {
  private readonly failures = new Map<string, Array<number>>()

  constructor(private readonly windowMs: number = WINDOW_MS) {}

  private recent(address: string, now: number): Array<number> {
    const kept = (this.failures.get(address) ?? []).filter((t) => t > now - this.windowMs)
    if (kept.length === 0) this.failures.delete(address)
    else this.failures.set(address, kept)
    return kept
  }

  /**
   * The 429 for a locked-out address, else undefined. As the service, the wait is
   * until enough failures leave the window to allow the next attempt; the service
   * sends no Retry-After header, only these words.
   */
  locked(address: string): ServiceFailure | undefined {
    const now = Date.now()
    const recent = this.recent(address, now)
    if (recent.length < ATTEMPTS) return undefined
    const freeing = recent[recent.length - ATTEMPTS] ?? now
    const seconds = Math.max(1, Math.ceil((freeing + this.windowMs - now) / 1000))
    return new ServiceFailure(429, `Too many attempts | Try again in ${seconds}s`)
  }

  /** Counts one failure; `error` gets the attempts left, as the service's message does. */
  failed(address: string, status: number, error: string): ServiceFailure {
    const now = Date.now()
    const recent = [...this.recent(address, now), now]
    this.failures.set(address, recent)
    return new ServiceFailure(status, `${error} | You have ${Math.max(0, ATTEMPTS - recent.length)} attempts remaining`)
  }
}
