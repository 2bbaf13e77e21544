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
