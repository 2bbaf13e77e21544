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

  it('an absolute bound is judged on the figure, in its unit', () => {
    const ran = scenario('startup', (rows) => {
      rows.compare({ id: 'startup/json/empty', subject: 'service (json file)', baseline: '', metric: 'start to healthy', unit: 'ms', better: 'lower', rounds: [900, 950, 980].map((value) => ({ value, baseline: 1 })) });
    });
    const [json] = judgeGoals([ran]);
    expect(json).toMatchObject({ id: 'start-up json', status: 'met', median: 950, unit: 'ms' });
  });
});
