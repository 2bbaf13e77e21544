import { describe, expect, it } from 'vitest';
import { composeRunStats } from '../../src/aggregates/run-stats.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { addToRunCounts, emptyRunCounts } from '../../src/store/run-rules.js';
import { makeRun } from '../support/runs.js';

const NOW = new Date('2026-03-01T12:00:30.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

/** A finished run created `minutesAgo`, started then and finished `durationMs` later. */
function finished(type: string, status: RunRecord['status'], minutesAgo: number, durationMs: number): RunRecord {
  const createdAt = ago(minutesAgo * 60_000);
  const finishedAt = new Date(Date.parse(createdAt) + durationMs).toISOString();
  return makeRun({ type, status, queueState: null, createdAt, startedAt: createdAt, finishedAt });
}

describe('composeRunStats', () => {
  const counts = emptyRunCounts();
  addToRunCounts(counts, { type: 'summarize-content', status: 'pending', queueState: 'ready' }, 3);
  addToRunCounts(counts, { type: 'summarize-content', status: 'pending', queueState: 'held' }, 2);
  addToRunCounts(counts, { type: 'summarize-content', status: 'running', queueState: null }, 1);

  it('buckets runs of the last hour per minute by status and ignores older ones', () => {
    const runs = [finished('a', 'success', 0, 10), finished('a', 'failed', 0, 10), finished('a', 'success', 59, 10), finished('a', 'success', 61, 10)];
    const stats = composeRunStats({ now: NOW, window: 'hour', runs, scanLimit: 100, counts });
    expect(stats.bucketSeconds).toBe(60);
    expect(stats.bucketStarts).toHaveLength(60);
    expect(stats.bucketStarts.at(-1)).toBe('2026-03-01T12:00:00.000Z');
    const success = stats.series.find((s) => s.status === 'success')!.counts;
    const failed = stats.series.find((s) => s.status === 'failed')!.counts;
    expect(success.at(-1)).toBe(1);
    expect(failed.at(-1)).toBe(1);
    expect(success.reduce((a, b) => a + b, 0)).toBe(2);
    expect(stats.sample).toEqual({ runsRead: 4, scanLimit: 100, truncated: false });
  });

  it('computes failure rate and nearest-rank p50/p95 per type; cancelled runs are not failures', () => {
    const durations = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000];
    const runs = [
      ...durations.map((d, i) => finished('slow', i < 2 ? 'failed' : 'success', 5, d)),
      finished('slow', 'cancelled', 5, 5),
      finished('quick', 'success', 3, 7),
    ];
    const stats = composeRunStats({ now: NOW, window: 'day', runs, scanLimit: 100, counts });
    expect(stats.bucketSeconds).toBe(900);
    expect(stats.bucketStarts).toHaveLength(96);
    const slow = stats.byType.find((t) => t.type === 'slow')!;
    expect(slow).toMatchObject({ created: 11, finished: 10, failed: 2, failureRate: 0.2, p50DurationMs: 500, p95DurationMs: 1000 });
    expect(stats.byType.find((t) => t.type === 'quick')).toMatchObject({ failureRate: 0, p50DurationMs: 7, p95DurationMs: 7 });
    expect(stats.queue).toEqual({ pending: 5, ready: 3, held: 2, running: 1, retrying: 0 });
  });

  it('a held run its approval settled is no failure and no success of its lane: rejected, expired or closed for its replay', () => {
    const held = (status: RunRecord['status'], approval: 'rejected' | 'approved', minutesAgo: number) => {
      const at = ago(minutesAgo * 60_000);
      const base = makeRun({ type: 'build-refactor', status, queueState: null, createdAt: at, startedAt: null, finishedAt: at });
      return {
        ...base,
        failureReason: status === 'failed' ? 'approval_rejected' : null,
        approval: { ...base.approval, required: true, status: approval, requestedAt: at, decidedAt: at },
      };
    };
    const runs = [
      finished('build-refactor', 'success', 2, 100),
      finished('build-refactor', 'failed', 2, 100),
      held('failed', 'rejected', 3),
      held('failed', 'rejected', 4),
      held('success', 'approved', 5),
    ];
    const stats = composeRunStats({ now: NOW, window: 'hour', runs, scanLimit: 100, counts });
    // Two rejections would make it 3 of 4 failed (0.75); only the two runs that executed count.
    expect(stats.byType.find((t) => t.type === 'build-refactor')).toMatchObject({ created: 5, finished: 2, failed: 1, failureRate: 0.5 });
    // The runs still appear under their stored status in the buckets.
    expect(stats.series.find((s) => s.status === 'failed')!.counts.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('a scan that filled its limit inside the window is reported as truncated', () => {
    const runs = [finished('a', 'success', 1, 1), finished('a', 'success', 2, 1)];
    expect(composeRunStats({ now: NOW, window: 'hour', runs, scanLimit: 2, counts }).sample.truncated).toBe(true);
    expect(composeRunStats({ now: NOW, window: 'hour', runs: [...runs, finished('a', 'success', 90, 1)], scanLimit: 3, counts }).sample.truncated).toBe(false);
  });
});
