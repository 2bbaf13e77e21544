import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeGoals } from '../../bench/lib/goals.js';
import { MAX_LINES, renderPerformanceDoc, type DocReport } from '../../bench/lib/performance-doc.js';
import type { ScenarioResult } from '../../bench/lib/results.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = 'test/bench/fixtures/results.json';
const report = JSON.parse(readFileSync(join(ROOT, FIXTURE), 'utf8')) as DocReport;
const parts = {
  intro: readFileSync(join(ROOT, 'bench', 'doc', 'intro.md'), 'utf8'),
  bounds: readFileSync(join(ROOT, 'bench', 'doc', 'bounds.md'), 'utf8'),
  source: FIXTURE,
};
const page = renderPerformanceDoc(report, parts);
const lines = page.split('\n');

describe('docs/performance.md from a results file', () => {
  it('the fixture holds what the verdict logic makes of its rounds', () => {
    expect(judgeGoals(report.scenarios as ScenarioResult[])).toEqual(report.verdicts);
  });

  it('has one table per scenario, under its title, with the goal columns', () => {
    for (const s of report.scenarios) {
      const heading = lines.indexOf(`### ${s.title} (\`${s.name}\`)`);
      expect(heading, s.name).toBeGreaterThan(0);
      expect(lines[heading + 2]).toBe('| subject | metric | value | baseline | ratio | spread | goal | verdict | note |');
    }
  });

  it('stays within its length limit', () => {
    expect(lines.length - 1).toBeLessThanOrEqual(MAX_LINES);
  });

  it('prints a median with its spread and the verdict for a judged goal', () => {
    const row = lines.find((l) => l.startsWith('| service (json file) | req/s, median of 3 rounds |') && l.includes('>= 0.5x the no-op ceiling'));
    expect(row).toBeDefined();
    expect(row).toContain('| 0.489x | 0.487-0.493x over 3 rounds |');
    expect(row).toContain('**not met**');
    expect(lines.some((l) => l.includes('closed-loop p99 <= 20 ms') && l.includes('| 18 ms |') && l.includes('**met**'))).toBe(true);
  });

  it('shows a void goal as void with its reason, never as a verdict on its ratio', () => {
    const inverted = lines.find((l) => l.startsWith('| service (sqlite) | req/s, median of 3 rounds |') && l.includes('no-op ceiling'));
    expect(inverted).toContain('**VOID**: ceilings out of order: bare fastify (5300) below bare fastify + fdatasync (7000)');
    expect(inverted).not.toMatch(/\*\*(met|not met)\*\*/);
    expect(inverted).toContain('| (0.585x) |');
    const spread = lines.find((l) => l.includes('| pg-boss |') && l.includes('median of 3 rounds'));
    expect(spread).toContain('**VOID**: rounds spread 0.564-2.11x, 157% of the median, past the 50% bound');
    expect(page).toMatch(/\| admission sqlite vs no-op: >= 0\.5x the no-op ceiling \| \(0\.585x\) \| [^|]* \| VOID: ceilings out of order/);
  });

  it('lists a goal this run did not measure in the summary only, with why', () => {
    expect(page).toMatch(/\| admission sqlite p99: closed-loop p99 <= 20 ms \| \(-\) \| - \| VOID: not measured in this run/);
    expect(lines.filter((l) => l.includes('closed-loop p99 <= 20 ms'))).toHaveLength(3);
  });

  it('says it was written from the fixture, names the build, and keeps the hand-written parts', () => {
    expect(page).toContain(`**Generated from the fixture results file \`${FIXTURE}\`, not from a measured run`);
    expect(page).toContain('build `94a9628`');
    expect(page).toContain('## How a goal is judged');
    expect(page).toContain('## What bounds each goal');
    expect(page).toContain('Self-checks: 2 of 2 passed.');
  });

  it('sums failed self-checks up under their scenario', () => {
    const failing = structuredClone(report);
    const row = failing.scenarios[0]!.rows.find((r) => r.metric.startsWith('check:'))!;
    row.failed = true;
    row.note = 'FAIL: 1 acknowledged key not stored';
    const out = renderPerformanceDoc(failing, parts);
    expect(out).toContain('1 FAILED');
    expect(out).toContain('FAILED: service (json file): stored keys = acknowledged keys (FAIL: 1 acknowledged key not stored)');
  });
});
