import { describe, expect, it } from 'vitest';
import { dueFiring, MISFIRE_GRACE_MS, overlapAction } from '../../src/schedules/firing-decision.js';

const EVERY_TEN_SECONDS = { cron: '*/10 * * * * *', timezone: 'UTC' };
const at = (iso: string) => new Date(`2026-03-01T10:${iso}Z`);

describe('the tick due now', () => {
  it('fires the latest tick on time, and nothing once it is decided', () => {
    const now = at('00:10.005');
    expect(dueFiring({ spec: EVERY_TEN_SECONDS, catchUp: 'skip', decidedThrough: [at('00:00.000')], now })).toEqual({
      kind: 'fire',
      fireAt: at('00:10.000'),
      catchUp: false,
    });
    // Decided already: by the schedule's start, an earlier firing, a skip, this instance.
    for (const decided of [at('00:10.000'), at('00:10.003')]) {
      expect(dueFiring({ spec: EVERY_TEN_SECONDS, catchUp: 'once', decidedThrough: [null, decided], now })).toEqual({ kind: 'none' });
    }
  });

  it('fires nothing before the schedule’s first tick', () => {
    expect(dueFiring({ spec: EVERY_TEN_SECONDS, catchUp: 'once', decidedThrough: [at('00:05.000')], now: at('00:09.999') })).toEqual({ kind: 'none' });
  });

  it('after downtime runs the most recent missed tick once with catchUp once, and drops it with skip', () => {
    // Last fired 10:00:10, down until 10:01:07: ticks 10:00:20 ... 10:01:00 were missed.
    const input = { spec: EVERY_TEN_SECONDS, decidedThrough: [at('00:00.000'), at('00:10.000')], now: at('01:07.000') };
    expect(dueFiring({ ...input, catchUp: 'once' })).toEqual({ kind: 'fire', fireAt: at('01:00.000'), catchUp: true });
    expect(dueFiring({ ...input, catchUp: 'skip' })).toEqual({ kind: 'missed', fireAt: at('01:00.000') });
    // Once that one is decided, nothing else of the downtime is due.
    expect(dueFiring({ ...input, catchUp: 'once', decidedThrough: [...input.decidedThrough, at('01:00.000')] })).toEqual({ kind: 'none' });
  });

  it('counts a tick late by at most the grace as on time', () => {
    const base = { spec: EVERY_TEN_SECONDS, catchUp: 'skip' as const, decidedThrough: [at('00:00.000')] };
    expect(dueFiring({ ...base, now: new Date(at('00:10.000').getTime() + MISFIRE_GRACE_MS) }).kind).toBe('fire');
    expect(dueFiring({ ...base, now: new Date(at('00:10.000').getTime() + MISFIRE_GRACE_MS + 1) }).kind).toBe('missed');
    expect(dueFiring({ ...base, now: at('00:10.500'), graceMs: 100 }).kind).toBe('missed');
  });
});

describe('overlap with the previous run', () => {
  const running = { runId: 'schedule:s:1', status: 'running' as const };
  it('admits when there is no previous run or it finished, whatever the policy', () => {
    for (const policy of ['skip', 'allow', 'cancel-previous'] as const) {
      expect(overlapAction(policy, null)).toEqual({ kind: 'admit' });
      expect(overlapAction(policy, { runId: 'r', status: 'success' })).toEqual({ kind: 'admit' });
      expect(overlapAction(policy, { runId: 'r', status: 'failed' })).toEqual({ kind: 'admit' });
    }
  });

  it('skips, admits beside, or cancels the previous run while it is pending, running or retrying', () => {
    for (const status of ['pending', 'running', 'retrying'] as const) {
      const previous = { ...running, status };
      expect(overlapAction('skip', previous)).toEqual({ kind: 'skip', reason: `overlap: the previous run schedule:s:1 is still ${status}` });
      expect(overlapAction('allow', previous)).toEqual({ kind: 'admit' });
      expect(overlapAction('cancel-previous', previous)).toEqual({ kind: 'cancel-previous', previousRunId: 'schedule:s:1' });
    }
  });
});
