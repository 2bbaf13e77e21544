/**
 * How a goal is judged from alternated rounds: the median of the rounds' ratios, printed with
 * their spread (min-max), and void instead of a verdict when the run cannot carry one.
 *
 * A ratio from one round says as much about the host's moment as about the code: on a shared
 * 2-core machine a ceiling's round can meet a slow second and put the no-op ceiling below the
 * durable one. So a goal needs at least MIN_ROUNDS paired rounds, its ceilings in order (no-op
 * above durable, bare server above the service), and rounds that agree within SPREAD_BOUND;
 * otherwise it is void and says why. Pure: no I/O, so it is unit-tested on its own.
 */

/** Paired rounds a goal needs before it is judged at all. */
export const MIN_ROUNDS = 3;

/**
 * The widest spread of the rounds' ratios a verdict accepts: (max - min) / median. Past it the
 * rounds disagree by more than the distance between most goals and their measured standing, so
 * the median would be chance. An absolute bound (p99 <= 50 ms) measures its spread against the
 * larger of its median and its bound: rounds of 2, 5 and 9 ms all meet 50 ms, however far apart
 * they are from each other, while rounds of 3.7 to 6.6 s against a 1 s bound spread against 5 s.
 */
export const SPREAD_BOUND = 0.5;

/** One round of a compared pair: the subject's figure and its baseline's, measured back to back. */
export interface PairedRound {
  value: number | null;
  baseline: number | null;
}

/** Two subjects whose figures must keep an order for the comparison to mean anything. */
export interface OrderRule {
  /** The subject that must be at least as fast, e.g. `bare fastify` (the no-op ceiling). */
  upper: string;
  lower: string;
  /** Their figures in each round (higher is faster). */
  upperRounds: (number | null)[];
  lowerRounds: (number | null)[];
}

export interface GoalInput {
  /** `higher`: the ratio must reach `target` (throughput); `lower`: stay at or below it (latency, CPU). */
  better: 'higher' | 'lower';
  target: number;
  rounds: PairedRound[];
  /**
   * The baseline is a ceiling (a bare server doing less than the service): a round where the
   * service beats it (by median, for `higher`) means the ceiling was not measured as one.
   */
  baselineIsCeiling?: boolean;
  orders?: OrderRule[];
  /** Subjects whose self-checks failed: their figures are no figures. */
  failedChecks?: string[];
  spreadBound?: number;
  /** An absolute bound (each round's baseline is 1): its spread is measured against max(median, target). */
  absolute?: boolean;
  /** How a ratio is printed in a reason: `x`, or the unit of an absolute bound (` ms`). */
  unit?: string;
}

export type VerdictStatus = 'met' | 'not met' | 'void';

export interface Verdict {
  status: VerdictStatus;
  /** Median of the rounds' ratios (null when no round has one). */
  median: number | null;
  min: number | null;
  max: number | null;
  rounds: number;
  /** The ratio of every round, in order. */
  ratios: number[];
  /** Why the goal is void (empty otherwise). */
  reasons: string[];
}

/** Median: the middle value, or the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * (max - min) / median, the rounds' disagreement relative to what is judged; with `floor` (an
 * absolute bound's target) relative to max(median, floor) instead.
 */
export function relativeSpread(values: readonly number[], floor = 0): number | null {
  const m = median(values);
  if (m === null) return null;
  const base = Math.max(m, floor);
  if (base <= 0) return null;
  return (Math.max(...values) - Math.min(...values)) / base;
}

function finite(values: readonly (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null && Number.isFinite(v));
}

function roundRatio(r: PairedRound): number | null {
  if (r.value === null || r.baseline === null || !Number.isFinite(r.value) || !Number.isFinite(r.baseline) || r.baseline <= 0) return null;
  return r.value / r.baseline;
}

const fmt = (n: number) => String(Number(n.toPrecision(3)));

function orderReasons(orders: readonly OrderRule[]): string[] {
  const out: string[] = [];
  for (const o of orders) {
    const upper = median(finite(o.upperRounds));
    const lower = median(finite(o.lowerRounds));
    if (upper !== null && lower !== null && upper < lower) {
      out.push(`ceilings out of order: ${o.upper} (${fmt(upper)}) below ${o.lower} (${fmt(lower)}) in the median of rounds`);
    }
  }
  return out;
}

/** Judges one goal from its paired rounds. */
export function judge(input: GoalInput): Verdict {
  const ratios = input.rounds.map(roundRatio).filter((r): r is number => r !== null);
  const m = median(ratios);
  const reasons: string[] = [];
  for (const subject of input.failedChecks ?? []) reasons.push(`a self-check of ${subject} failed`);
  if (ratios.length < MIN_ROUNDS) reasons.push(`${ratios.length} paired round${ratios.length === 1 ? '' : 's'}, ${MIN_ROUNDS} needed`);
  reasons.push(...orderReasons(input.orders ?? []));
  if (input.baselineIsCeiling && m !== null) {
    const serviceAbove = input.better === 'higher' ? m > 1 : m < 1;
    if (serviceAbove) reasons.push(`ceiling below the service: the baseline was ${input.better === 'higher' ? 'slower' : 'costlier'} than the service in the median of rounds (${fmt(m)}x)`);
  }
  const bound = input.spreadBound ?? SPREAD_BOUND;
  const spread = relativeSpread(ratios, input.absolute ? input.target : 0);
  if (spread !== null && ratios.length >= MIN_ROUNDS && spread > bound) {
    const unit = input.unit ?? 'x';
    const against = input.absolute && m !== null && input.target > m ? `the ${fmt(input.target)}${unit} bound` : 'the median';
    reasons.push(`rounds spread ${fmt(Math.min(...ratios))}-${fmt(Math.max(...ratios))}${unit}, ${Math.round(spread * 100)}% of ${against}, past the ${Math.round(bound * 100)}% bound`);
  }
  const base = { median: m, min: ratios.length ? Math.min(...ratios) : null, max: ratios.length ? Math.max(...ratios) : null, rounds: ratios.length, ratios };
  if (reasons.length || m === null) return { status: 'void', ...base, reasons: reasons.length ? reasons : ['no ratio'] };
  const met = input.better === 'higher' ? m >= input.target : m <= input.target;
  return { status: met ? 'met' : 'not met', ...base, reasons: [] };
}
