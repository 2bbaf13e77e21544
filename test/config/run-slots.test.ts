import { describe, expect, it } from 'vitest';
import { MAX_RUN_SLOTS } from '../../src/config/schema.js';
import { testConfig } from '../support/config.js';

describe('run slots (concurrency)', () => {
  it('takes up to MAX_RUN_SLOTS from the environment and refuses one more, naming the field', () => {
    expect(MAX_RUN_SLOTS).toBe(1024);
    expect(testConfig({ ORCHESTRATOR_CONCURRENCY: String(MAX_RUN_SLOTS) }).concurrency).toBe(MAX_RUN_SLOTS);
    expect(() => testConfig({ ORCHESTRATOR_CONCURRENCY: String(MAX_RUN_SLOTS + 1) })).toThrow(/concurrency/);
    expect(() => testConfig({ ORCHESTRATOR_CONCURRENCY: '-1' })).toThrow(/CONCURRENCY/);
  });

  it('takes 0 (an instance that admits but runs nothing) only with the shared PostgreSQL store', () => {
    const shared = { ORCHESTRATOR_CONCURRENCY: '0', DATABASE_URL: 'postgres://127.0.0.1:5432/fleet' };
    expect(testConfig(shared).concurrency).toBe(0);
    expect(testConfig({ ...shared, STATE_FILE: 'docdb:fleet-a' }).concurrency).toBe(0);
    // A file or SQLite store is opened by this instance alone: nothing would ever run its runs.
    expect(() => testConfig({ ORCHESTRATOR_CONCURRENCY: '0' })).toThrow(/concurrency 0 .*shared PostgreSQL store/);
    expect(() => testConfig({ ...shared, STATE_FILE: 'sql:./state.sqlite' })).toThrow(/concurrency 0/);
  });

  it('defaults to 2', () => {
    expect(testConfig().concurrency).toBe(2);
  });
});
