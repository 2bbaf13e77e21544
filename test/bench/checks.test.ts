import { describe, expect, it } from 'vitest';
import { analyzeCounts, exactlyOnceChecks, makePlan, type ExactlyOnceResult } from '../../bench/lib/exactly-once.js';
import { RowSink } from '../../bench/lib/results.js';
import { textTable } from '../../bench/lib/table.js';

function result(overrides: Partial<ExactlyOnceResult>): ExactlyOnceResult {
  return {
    system: 'queue',
    unique: 300,
    duplicatesSubmitted: 30,
    completed: 300,
    failed: 0,
    missing: 0,
    duplicatesExecuted: 0,
    durationMs: 500,
    submitMs: 200,
    tasksPerSec: 600,
    timedOut: false,
    settings: {},
    ...overrides,
  };
}

describe('bench self-checks', () => {
  it('a clean exactly-once result passes both checks', () => {
    expect(exactlyOnceChecks(result({})).every((c) => c.ok)).toBe(true);
  });

  it('one duplicate execution fails the scenario', () => {
    const checks = exactlyOnceChecks(result({ duplicatesExecuted: 1 }));
    expect(checks.find((c) => c.what === 'duplicatesExecuted = 0')).toMatchObject({ ok: false, detail: '1 duplicate executions' });
  });

  it('fewer completed than N, or a timeout, fails the scenario', () => {
    expect(exactlyOnceChecks(result({ completed: 299, failed: 1 })).find((c) => c.what === 'completed = N')).toMatchObject({
      ok: false,
      detail: '299/300 completed, 1 failed',
    });
    expect(exactlyOnceChecks(result({ timedOut: true })).find((c) => c.what === 'completed = N')?.ok).toBe(false);
  });

  it('counts executions of unknown keys and repeats as duplicates, and unexecuted keys as missing', () => {
    const plan = makePlan('t', 4, 2);
    const [a, b, c] = plan.unique;
    const figures = analyzeCounts(plan, { [a!]: 1, [b!]: 3, [c!]: 1, stranger: 1 });
    expect(figures).toEqual({ completed: 3, duplicatesExecuted: 3, missing: 1 });
  });

  it('checks warm-up keys for repeats but counts them as no throughput', () => {
    const plan = makePlan('t', 2, 0, 3);
    const [w0, w1, w2] = plan.warmup;
    const [a, b] = plan.unique;
    expect(new Set([...plan.warmup, ...plan.unique]).size).toBe(5);
    expect(analyzeCounts(plan, { [w0!]: 1, [w1!]: 1, [w2!]: 1, [a!]: 1, [b!]: 1 })).toEqual({ completed: 2, duplicatesExecuted: 0, missing: 0 });
    expect(analyzeCounts(plan, { [w0!]: 2, [w1!]: 1, [a!]: 1 })).toEqual({ completed: 1, duplicatesExecuted: 1, missing: 1 });
  });

  it('the plan sends every unique key once plus the duplicates', () => {
    const plan = makePlan('t', 100, 10);
    expect(new Set(plan.submissions).size).toBe(100);
    expect(plan.submissions.length + plan.late.length).toBe(110);
  });

  it('a failed check marks its row failed and says FAIL in the table', () => {
    const rows = new RowSink('admission');
    expect(rows.check('service (json file)', 'stored runs = 202s', false, '10 answered 202, 9 runs stored')).toBe(false);
    rows.check('service (sqlite)', 'stored runs = 202s', true, '10 answered 202, 10 runs stored');
    expect(rows.rows.map((r) => r.failed ?? false)).toEqual([true, false]);
    const table = textTable(rows.rows);
    expect(table).toContain('FAIL: 10 answered 202, 9 runs stored');
    expect(table).toContain('ok: 10 answered 202, 10 runs stored');
  });

  it('peer rows carry their durability into the table', () => {
    const rows = new RowSink('e2e');
    rows.add({ subject: 'bullmq', metric: 'tasks/s', unit: '', value: 100, durability: 'AOF fsynced before each reply' });
    expect(textTable(rows.rows)).toContain('durability: AOF fsynced before each reply');
  });
});
