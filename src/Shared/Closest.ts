/**
 * "Did you mean": the candidate nearest a misspelt name by edit distance, when one is near
 * enough to be what was meant. Names are short (a field, a variable, a selector), and the
 * distance is only computed up to them: bounded by the caller's names, never by input alone.
 */

/** The longest name compared: a longer one is no typo of a name of ours. */
const LONGEST = 120

/** Edit distance between two short names. */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length] as number
}

/**
 * The candidate nearest `name`, ignoring case, within a third of its length (at least one edit);
 * undefined when none is that near.
 */
export const closest = (name: string, candidates: Iterable<string>): string | undefined => {
  if (name.length > LONGEST) return undefined
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestScore = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    if (candidate.length > LONGEST) continue
    const score = candidate.toLowerCase() === lower ? 0 : distance(lower, candidate.toLowerCase())
    if (score < bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best !== undefined && bestScore <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined
}
