/** The value of one series of a Prometheus exposition (`name{labels}` as its line begins), or null when it is absent. */
export function seriesValue(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}
