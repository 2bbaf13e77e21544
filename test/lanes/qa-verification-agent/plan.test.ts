import { describe, expect, it } from 'vitest';
import { buildPlan, scriptForSuite } from '../../../agents/qa-verification-agent/plan.js';
import { readQaInput } from '../../../agents/qa-verification-agent/read-input.js';
import { payloadProblems } from '../../../src/lanes/payload-check.js';

const scripts = { test: 'node --test', 'test:smoke': 'node --test test/smoke', build: 'tsc' };

describe('suite to script', () => {
  it('runs test:<suite> when the project defines it', () => {
    expect(scriptForSuite(scripts, 'smoke')).toBe('test:smoke');
  });

  it('falls back to test for unit, full and any suite without its own script', () => {
    for (const suite of ['unit', 'full', 'integration']) expect(scriptForSuite(scripts, suite)).toBe('test');
  });

  it('finds no script when the project has neither test:<suite> nor test', () => {
    expect(scriptForSuite({ build: 'tsc', 'test:smoke': '' }, 'smoke')).toBeNull();
  });

  it('plans one npm run in the target folder', () => {
    expect(buildPlan('apps/shop', scripts, 'smoke')).toEqual([
      { command: 'npm', args: ['run', 'test:smoke'], cwd: 'apps/shop', script: 'test:smoke' },
    ]);
    expect(buildPlan('apps/shop', { build: 'tsc' }, 'smoke')).toBeNull();
  });
});

describe('payload', () => {
  it('defaults to suite full, dry-run and a 120 s timeout', () => {
    expect(readQaInput({ target: 'apps/shop' })).toEqual({ target: 'apps/shop', suite: 'full', mode: 'dry-run', timeoutMs: 120_000 });
  });

  it('leaves suite names that are not plain words, unknown modes, unbounded timeouts and a missing target to the schema', () => {
    // The worker SDK refuses these before the lane runs, with the checker admission uses.
    expect(payloadProblems('qa-verification', { target: 'a', suite: 'smoke; rm -rf /' })).toEqual([
      { path: '/suite', message: expect.stringMatching(/^must match pattern/) },
    ]);
    expect(payloadProblems('qa-verification', { target: 'a', mode: 'run' })).toEqual([{ path: '/mode', message: 'must be one of: dry-run, execute' }]);
    expect(payloadProblems('qa-verification', { target: 'a', timeoutMs: 10_000_000 })).toEqual([{ path: '/timeoutMs', message: 'must be <= 540000' }]);
    expect(payloadProblems('qa-verification', { suite: 'smoke' })).toEqual([{ path: '/target', message: 'is required' }]);
    expect(payloadProblems('qa-verification', { target: 'a', suite: 'smoke', mode: 'execute', timeoutMs: 1_000 })).toEqual([]);
  });
});
