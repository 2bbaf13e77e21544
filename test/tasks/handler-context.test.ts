import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { composeService } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { testConfig } from '../support/config.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';

/** Every string reachable from `value` through plain data (objects, arrays), to a bounded depth. */
function stringsIn(value: unknown, depth = 6, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (depth === 0 || value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  return Object.values(value as Record<string, unknown>).flatMap((v) => stringsIn(v, depth - 1, seen));
}

describe('in-process handlers as the composition root binds them', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it('get their narrow context: no API key, no webhook secret, no unrelated setting', async () => {
    const config = testConfig();
    store = openStateStore(config.stateTarget);
    await store.open();
    const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
    const { lanes } = composeService({ config, logger: pino({ level: 'silent' }), clock: systemClock, store, coordination, metricsPort: null });
    const handlerTypes = TASK_CATALOG.filter((entry) => entry.executor === 'handler').map((entry) => entry.type);
    const secrets = [...Object.values(TEST_KEYS), TEST_WEBHOOK_SECRET];
    for (const type of handlerTypes) {
      const handler = lanes.get(type).handler;
      expect(handler, `${type} has a handler`).toBeDefined();
      const context = handler!.context;
      const strings = stringsIn(context);
      for (const secret of secrets) expect(strings.some((s) => s.includes(secret)), `${type} context holds a secret`).toBe(false);
      if (context && typeof context === 'object') {
        expect(Object.keys(context), `${type} context`).not.toContain('apiKeys');
        expect(Object.keys(context), `${type} context`).not.toContain('webhookSecret');
        expect(Object.keys(context).length, `${type} context is narrow`).toBeLessThan(8);
      }
    }
  });
});
