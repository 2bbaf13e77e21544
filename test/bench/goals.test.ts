import { describe, expect, it } from 'vitest';
import { GOALS, judgeGoals } from '../../bench/lib/goals.js';
import { RowSink, type ScenarioResult } from '../../bench/lib/results.js';

function scenario(name: string, fill: (rows: RowSink) => void): ScenarioResult {
  const rows = new RowSink(name);
  fill(rows);
  return { name, title: name, rows: rows.rows, comparisons: rows.comparisons, details: {}, durationMs: 0 };
}

describe('the goals judged from a run', () => {
  it('judges only the goals of scenarios that ran, and names every comparison id a scenario records', () => {
    const verdicts = judgeGoals([scenario('health', () => {})]);
    expect(verdicts.map((v) => v.id)).toEqual(['health json', 'health sqlite']);
    expect(new Set(GOALS.map((g) => g.id)).size).toBe(GOALS.length);
  });

  it('a pair the scenario did not measure is void and says so', () => {
    const [json] = judgeGoals([scenario('health', () => {})]);
    expect(json).toMatchObject({ status: 'void', rounds: 0, reasons: ['not measured in this run (not in this mode, skipped, or failed before its rounds)'] });
  });

  it("a failed self-check of either side voids the pair's goal", () => {
    const ran = scenario('tracing', (rows) => {
      rows.compare({ id: 'tracing/on-off', subject: 'on', baseline: 'off', metric: 'req/s', unit: '', better: 'higher', rounds: [0, 1, 2].map(() => ({ value: 900, baseline: 1000 })) });
      rows.check('off', 'every request answered 202', false, '3 non-2xx');
    });
    const [tracing] = judgeGoals([ran]);
    expect(tracing).toMatchObject({ status: 'void', median: 0.9, reasons: ['a self-check of off failed'] });
  });

  it('the flows goals: each shape against its independent runs, and its promotion p99 against 50 ms with the spread counted against the bound', () => {
    const ran = scenario('flows', (rows) => {
      rows.compare({ id: 'flows/fan-out/independent', subject: 'flow', baseline: 'independent', metric: 'steps/s', unit: '', better: 'higher', rounds: [[300, 320], [280, 330], [310, 300]].map(([value, baseline]) => ({ value: value!, baseline: baseline! })) });
      rows.compare({ id: 'flows/fan-out/promotion p99', subject: 'flow', baseline: '', metric: 'promotion p99', unit: 'ms', better: 'lower', rounds: [3, 12, 6].map((value) => ({ value, baseline: 1 })) });
      rows.compare({ id: 'flows/grid/independent', subject: 'grid', baseline: 'grid independent', metric: 'steps/s', unit: '', better: 'higher', rounds: [[100, 300], [250, 300], [150, 300]].map(([value, baseline]) => ({ value: value!, baseline: baseline! })) });
    });
    const byId = Object.fromEntries(judgeGoals([ran]).map((v) => [v.id, v]));
    expect(Object.keys(byId)).toEqual(['flows fan-out vs independent runs', 'flows fan-out promotion p99', 'flows grid vs independent runs', 'flows grid promotion p99']);
    expect(byId['flows fan-out vs independent runs']).toMatchObject({ status: 'met', rounds: 3 });
    expect(byId['flows fan-out promotion p99']).toMatchObject({ status: 'met', median: 6, unit: 'ms' });
    expect(byId['flows grid vs independent runs']!.status).toBe('void');
    expect(byId['flows grid vs independent runs']!.reasons[0]).toMatch(/rounds spread 0\.333-0\.833x/);
    expect(byId['flows grid promotion p99']).toMatchObject({ status: 'void', rounds: 0 });
  });

  it('an absolute bound is judged on the figure, in its unit', () => {
    const ran = scenario('startup', (rows) => {
      rows.compare({ id: 'startup/json/empty', subject: 'service (json file)', baseline: '', metric: 'start to healthy', unit: 'ms', better: 'lower', rounds: [900, 950, 980].map((value) => ({ value, baseline: 1 })) });
    });
    const [json] = judgeGoals([ran]);
    expect(json).toMatchObject({ id: 'start-up json', status: 'met', median: 950, unit: 'ms' });
  });
});
