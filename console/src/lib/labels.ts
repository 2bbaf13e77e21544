/** Record keys as words for labels and column names. */

/** `lastRefreshAt` → "Last refresh at"; `p95DurationMs` → "P95 duration". */
export function humanize(key: string): string {
  const words = key
    .replace(/Ms$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A task type's telemetry in words: "5 runs, 80 % succeeded", or "no run yet". */
export function runsInWords(total: number, successRate: number | null | undefined): string {
  if (total === 0) return 'no run yet';
  const rate = successRate === null || successRate === undefined ? '' : `, ${Math.round(successRate * 100)} % succeeded`;
  return `${total} ${total === 1 ? 'run' : 'runs'}${rate}`;
}
