/**
 * How many cases a property test tries: the count it gives (fast-check's 100
 * where it gives none), times PROPERTY_RUNS, 1 unless set. `npm test` sets 4;
 * a longer search is one variable away: `PROPERTY_RUNS=20 npm run test:unit`.
 * The unit lane loads this file first (vitest.config.ts), for the counts not given.
 */
import * as FastCheck from "fast-check"

const given = Number(process.env.PROPERTY_RUNS)
const SCALE = Number.isFinite(given) && given > 0 ? given : 1

export const runs = (count: number): number => Math.max(1, Math.round(count * SCALE))

FastCheck.configureGlobal({ ...FastCheck.readConfigureGlobal(), numRuns: runs(100) })
