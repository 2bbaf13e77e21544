import { settledByApproval } from '../domain/approval-refusal.js';
import Type, { type Static } from 'typebox';
import { RUN_STATUSES, type RunRecord, type RunStatus } from '../domain/run-record.js';
import type { RunCounts } from '../store/types.js';

/**
 * Run activity for the console's overview charts: runs per time bucket by status, failure rate
 * and p50/p95 duration per type, and the queue as it stands. Computed from one bounded read of
 * the newest runs (RUN_STATS_SCAN_LIMIT), never from every stored run: `sample.truncated` says
 * when the window held more runs than that read.
 */

export const RUN_STATS_WINDOWS = ['hour', 'day'] as const;
export type RunStatsWindow = (typeof RUN_STATS_WINDOWS)[number];

/** How far back each window reaches and how wide one bucket is. */
const WINDOW_SHAPE: Record<RunStatsWindow, { spanMs: number; bucketMs: number }> = {
  hour: { spanMs: 60 * 60_000, bucketMs: 60_000 },
  day: { spanMs: 24 * 60 * 60_000, bucketMs: 15 * 60_000 },
};

/** The most runs one answer reads (newest first); the dashboard's accounting reads 200. */
export const RUN_STATS_SCAN_LIMIT = 2000;

const Count = Type.Integer({ minimum: 0 });
const NullableMs = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

export const RunStatsQuerySchema = Type.Object(
  { window: Type.Optional(Type.Enum(RUN_STATS_WINDOWS, { description: '`hour` (1-minute buckets, default) or `day` (15-minute buckets)' })) },
  { additionalProperties: false },
);
export type RunStatsQuery = Static<typeof RunStatsQuerySchema>;

export const RunStatsSchema = Type.Object(
  {
    generatedAt: Type.String({ format: 'date-time' }),
    window: Type.Enum(RUN_STATS_WINDOWS),
    bucketSeconds: Type.Integer({ minimum: 1 }),
    bucketStarts: Type.Array(Type.String({ format: 'date-time' }), { description: 'Start of each bucket, oldest first' }),
    series: Type.Array(
      Type.Object(
        {
          status: Type.Enum(RUN_STATUSES),
          counts: Type.Array(Count, { description: 'Runs created in each bucket that now have this status' }),
        },
        { additionalProperties: false },
      ),
    ),
    byType: Type.Array(
      Type.Object(
        {
          type: Type.String(),
          created: Count,
          finished: Count,
          failed: Count,
          failureRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
            description:
              'failed / finished, over runs that executed: cancelled runs and held runs settled by their approval (rejected, expired, or closed for their replay) count in neither; null with none finished',
          }),
          p50DurationMs: NullableMs,
          p95DurationMs: NullableMs,
        },
        { additionalProperties: false },
      ),
      { description: 'Per task type, over runs created in the window; durations run from start to finish' },
    ),
    queue: Type.Object(
      { pending: Count, ready: Count, held: Count, running: Count, retrying: Count },
      { additionalProperties: false, description: 'Now, from the store counts (not limited by the window or the scan)' },
    ),
    sample: Type.Object(
      {
        runsRead: Count,
        scanLimit: Count,
        truncated: Type.Boolean({ description: 'The window held more runs than the scan read: older buckets undercount' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type RunStats = Static<typeof RunStatsSchema>;

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}

function durationMs(run: RunRecord): number | null {
  if (!run.startedAt || !run.finishedAt) return null;
  const ms = Date.parse(run.finishedAt) - Date.parse(run.startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}


/**
 * Composes the statistics from runs read newest first (`runs`, at most `scanLimit`) and the
 * store's counts. Runs created before the window are ignored; a scan that filled its limit
 * without leaving the window is reported as truncated.
 */
export function composeRunStats(input: {
  now: Date;
  window: RunStatsWindow;
  runs: readonly RunRecord[];
  scanLimit: number;
  counts: RunCounts;
}): RunStats {
  const { spanMs, bucketMs } = WINDOW_SHAPE[input.window];
  const end = Math.floor(input.now.getTime() / bucketMs) * bucketMs + bucketMs;
  const start = end - spanMs;
  const bucketCount = spanMs / bucketMs;
  const bucketStarts = Array.from({ length: bucketCount }, (_, i) => new Date(start + i * bucketMs).toISOString());
  const perStatus = new Map<RunStatus, number[]>(RUN_STATUSES.map((s) => [s, new Array<number>(bucketCount).fill(0)]));
  const perType = new Map<string, { created: number; finished: number; failed: number; durations: number[] }>();

  let leftWindow = false;
  for (const run of input.runs) {
    const created = Date.parse(run.createdAt);
    if (!Number.isFinite(created) || created < start) {
      leftWindow = true;
      continue;
    }
    const index = Math.min(bucketCount - 1, Math.floor((created - start) / bucketMs));
    perStatus.get(run.status)![index]! += 1;
    const type = perType.get(run.type) ?? { created: 0, finished: 0, failed: 0, durations: [] };
    type.created += 1;
    if ((run.status === 'success' || run.status === 'failed') && !settledByApproval(run)) {
      type.finished += 1;
      if (run.status === 'failed') type.failed += 1;
      const ms = durationMs(run);
      if (ms !== null) type.durations.push(ms);
    }
    perType.set(run.type, type);
  }

  const byType = [...perType.entries()]
    .map(([type, t]) => {
      const sorted = [...t.durations].sort((a, b) => a - b);
      return {
        type,
        created: t.created,
        finished: t.finished,
        failed: t.failed,
        failureRate: t.finished === 0 ? null : t.failed / t.finished,
        p50DurationMs: percentile(sorted, 50),
        p95DurationMs: percentile(sorted, 95),
      };
    })
    .sort((a, b) => b.created - a.created || a.type.localeCompare(b.type));

  const { byStatus } = input.counts;
  return {
    generatedAt: input.now.toISOString(),
    window: input.window,
    bucketSeconds: bucketMs / 1000,
    bucketStarts,
    series: RUN_STATUSES.map((status) => ({ status, counts: perStatus.get(status)! })),
    byType,
    queue: { pending: byStatus.pending, ready: input.counts.ready, held: input.counts.held, running: byStatus.running, retrying: byStatus.retrying },
    sample: { runsRead: input.runs.length, scanLimit: input.scanLimit, truncated: !leftWindow && input.runs.length >= input.scanLimit },
  };
}
