/** The "Created" choices of the runs list: windows ending now. */
export const CREATED_RANGES: Record<string, { label: string; ms: number }> = {
  '15m': { label: 'last 15 minutes', ms: 15 * 60_000 },
  '1h': { label: 'last hour', ms: 3_600_000 },
  '24h': { label: 'last 24 hours', ms: 86_400_000 },
  '7d': { label: 'last 7 days', ms: 7 * 86_400_000 },
};

const STEP_MS = 60_000;

/**
 * The start of a window (epoch ms), or null for "any time". Rounded down to the minute: the
 * start goes into the request URL, so a start that moved with every clock tick would make every
 * read a new query (and a response-cache miss); moving once a minute keeps the list and the
 * counts cached between ticks, at the cost of showing up to a minute more than the label says.
 */
export function createdRangeStart(range: string, now: number): number | null {
  const choice = CREATED_RANGES[range];
  if (choice === undefined) return null;
  return Math.floor((now - choice.ms) / STEP_MS) * STEP_MS;
}
