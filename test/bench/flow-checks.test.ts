/**
 * The flows scenario's shapes and the pure parts of its self-checks: executions counted from a
 * handler's log (never, more than once, a step that is not in the flow) and the latency from a
 * step's last dependency to its promotion or start.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countExecutions, dependencyLatencies, describeExecutions, epochMs, exactlyOnce, fanOutFanIn, grid } from '../../bench/lib/flow-checks.js';
import { countLines, handlerLog } from '../../bench/lib/handler-log.js';

describe('the bench flows', () => {
  it('a fan-out/fan-in of 1,000 steps is a root, 998 middle steps after it and a join after all of them', () => {
    const steps = fanOutFanIn(1000);
    expect(steps).toHaveLength(1000);
    expect(steps[0]).toEqual({ key: 'root', dependsOn: [] });
    expect(steps.slice(1, -1).every((s) => s.dependsOn.length === 1 && s.dependsOn[0] === 'root')).toBe(true);
    expect(steps.at(-1)!.dependsOn).toHaveLength(998);
    expect(new Set(steps.map((s) => s.key)).size).toBe(1000);
  });

  it('a 10 x 100 grid: 1,000 steps, the first layer free, every other step after two steps of the layer before', () => {
    const steps = grid(10, 100);
    expect(steps).toHaveLength(1000);
    expect(steps.filter((s) => s.dependsOn.length === 0).map((s) => s.key)).toEqual(Array.from({ length: 10 }, (_, i) => `l0-${i}`));
    const keys = new Set(steps.map((s) => s.key));
    const wrong = steps.slice(10).filter((s) => {
      const layer = Number(s.key.slice(1, s.key.indexOf('-')));
      return s.dependsOn.length !== 2 || s.dependsOn.some((d) => !keys.has(d) || !d.startsWith(`l${layer - 1}-`));
    });
    expect(wrong).toEqual([]);
    expect(steps.find((s) => s.key === 'l5-9')!.dependsOn).toEqual(['l4-9', 'l4-0']);
    // One wide: a chain, each step after the one before.
    expect(grid(1, 3).map((s) => s.dependsOn)).toEqual([[], ['l0-0'], ['l1-0']]);
  });

  it('refuses shapes that are not one', () => {
    expect(() => fanOutFanIn(2)).toThrow(/at least 3 steps/);
    expect(() => grid(0, 5)).toThrow(/at least 1/);
  });
});

describe('executions counted from the handler log', () => {
  const flowIds = ['flow:f1:root', 'flow:f1:m0', 'flow:f1:m1', 'flow:f1:join'];

  it('every step once passes; other work of the process under another prefix is ignored', () => {
    const log = countLines(`${flowIds.join('\n')}\nflow:f0:root\nindependent-1\n`);
    const count = countExecutions(log, flowIds, 'flow:f1:');
    expect(exactlyOnce(count)).toBe(true);
    expect(describeExecutions(count, 4)).toBe('4 of 4 executed once');
  });

  it('a step run twice fails and is named with its count', () => {
    const count = countExecutions(countLines(`${flowIds.join('\n')}\nflow:f1:m1\n`), flowIds, 'flow:f1:');
    expect(exactlyOnce(count)).toBe(false);
    expect(count.repeated).toEqual([{ id: 'flow:f1:m1', times: 2 }]);
    expect(describeExecutions(count, 4)).toBe('3 of 4 executed once, 1 more than once (flow:f1:m1 x2)');
  });

  it('a step never run fails, and so does a run of the flow that is not one of its steps', () => {
    const missing = countExecutions(countLines('flow:f1:root\nflow:f1:m0\nflow:f1:join\n'), flowIds, 'flow:f1:');
    expect(exactlyOnce(missing)).toBe(false);
    expect(missing.missing).toEqual(['flow:f1:m1']);
    const stray = countExecutions(countLines(`${flowIds.join('\n')}\nflow:f1:m7\n`), flowIds, 'flow:f1:');
    expect(exactlyOnce(stray)).toBe(false);
    expect(describeExecutions(stray, 4)).toContain('1 not in the flow (flow:f1:m7)');
  });

  it('flow-step-twice: a step forged into a real handler log a second time fails the count', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-flowlog-'));
    try {
      const log = handlerLog(dir);
      writeFileSync(join(dir, 'handler-executions.log'), `${flowIds.join('\n')}\n`);
      expect(exactlyOnce(countExecutions(log.counts(), flowIds, 'flow:f1:'))).toBe(true);
      log.forge('flow:f1:join');
      const count = countExecutions(log.counts(), flowIds, 'flow:f1:');
      expect(exactlyOnce(count)).toBe(false);
      expect(count.repeated).toEqual([{ id: 'flow:f1:join', times: 2 }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a long list of wrong ids names three of them', () => {
    const count = countExecutions({}, Array.from({ length: 5 }, (_, i) => `k${i}`), 'k');
    expect(describeExecutions(count, 5)).toBe('0 of 5 executed once, 5 never (k0, k1, k2, ...)');
  });
});

describe('latency from the last dependency', () => {
  it('measures each dependent from its latest dependency, leaves out the free steps and counts what has no time', () => {
    const steps = [
      { key: 'a', dependsOn: [] },
      { key: 'b', dependsOn: [] },
      { key: 'c', dependsOn: ['a', 'b'] },
      { key: 'd', dependsOn: ['c'] },
      { key: 'e', dependsOn: ['a'] },
    ];
    const ended: Record<string, number | null> = { a: 1000, b: 1030, c: 1100, d: 1200, e: null };
    const promoted: Record<string, number | null> = { c: 1042, d: 1105, e: null };
    const { latencies, unmeasured } = dependencyLatencies(steps, (k) => ended[k] ?? null, (k) => promoted[k] ?? null);
    expect(latencies).toEqual([12, 5]);
    expect(unmeasured).toBe(1);
  });

  it('reads ISO timestamps and epoch ms alike, nothing from an absent or unreadable one', () => {
    expect(epochMs('2026-11-29T20:00:00.250Z')).toBe(Date.UTC(2026, 10, 29, 20, 0, 0, 250));
    expect(epochMs(1234)).toBe(1234);
    expect(epochMs(null)).toBeNull();
    expect(epochMs(undefined)).toBeNull();
    expect(epochMs('not a time')).toBeNull();
  });
});
