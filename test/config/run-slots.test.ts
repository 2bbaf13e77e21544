import { describe, expect, it } from 'vitest';
import { MAX_RUN_SLOTS } from '../../src/config/schema.js';
import { testConfig } from '../support/config.js';

describe('run slots (concurrency)', () => {
  it('takes up to MAX_RUN_SLOTS from the environment and refuses one more, naming the field', () => {
    expect(MAX_RUN_SLOTS).toBe(1024);
    expect(testConfig({ ORCHESTRATOR_CONCURRENCY: String(MAX_RUN_SLOTS) }).concurrency).toBe(MAX_RUN_SLOTS);
    expect(() => testConfig({ ORCHESTRATOR_CONCURRENCY: String(MAX_RUN_SLOTS + 1) })).toThrow(/concurrency/);
    expect(() => testConfig({ ORCHESTRATOR_CONCURRENCY: '0' })).toThrow(/concurrency/);
  });

  it('defaults to 2', () => {
    expect(testConfig().concurrency).toBe(2);
  });
});
