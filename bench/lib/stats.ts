/** Small, dependency-free statistics helpers for benchmark samples. */

export interface Summary {
  count: number;
  min: number;
  max: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}

/** Percentile by linear interpolation between closest ranks; `p` in [0, 100]. NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 1) return sorted[0]!;
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (rank - lo);
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  return samples.reduce((s, v) => s + v, 0) / samples.length;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    count: samples.length,
    min: samples.length ? Math.min(...samples) : Number.NaN,
    max: samples.length ? Math.max(...samples) : Number.NaN,
    mean: mean(samples),
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
  };
}

/** value / baseline, or null when either side is missing or the baseline is not positive. */
export function ratio(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value === null || value === undefined || baseline === null || baseline === undefined) return null;
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline <= 0) return null;
  return value / baseline;
}

/** Rounds for display and JSON: integers above 100, three significant digits below. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 100) return Math.round(value);
  return Number(value.toPrecision(3));
}
