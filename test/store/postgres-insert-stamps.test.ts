import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { PENDING_TX } from '../../src/store/postgres/sql-stamps.js';
import { withEvent } from '../../src/domain/run-events.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: PostgreSQL insert stamp tests skipped';
const schema = uniqueSchema('insert_stamps');
let store: PostgresStateStore | null = null;

afterAll(async () => {
  await store?.close();
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [schema]);
});

/**
 * A new key's first write is one INSERT that stamps the run's events with its own transaction id
 * in SQL (src/store/postgres/sql-stamps.ts). A payload that holds the pending stamp's text cannot
 * be stamped that way and is written by a transaction instead: either way the events carry the
 * writing transaction's id and the payload is stored as sent.
 */
describe.skipIf(!TEST_DATABASE_URL)(`PostgreSQL insert of a new run (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  it('stamps the new events with the transaction id, also when the payload holds the pending stamp', async () => {
    store = new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 2 });
    await store.open();
    const at = new Date('2026-01-01T00:00:00.000Z');
    const plain = withEvent(makeRun({ runId: 'plain' }), at, { kind: 'queue', name: 'admitted' });
    const tricky = withEvent(makeRun({ runId: 'tricky', payload: { note: `"tx":${PENDING_TX}` } }), at, { kind: 'queue', name: 'admitted' });

    for (const run of [plain, tricky]) {
      const written = await store.mutateRun(run.runId, insertIfAbsent(run));
      expect(written.changed).toBe(true);
      const stored = await store.getRun(run.runId);
      expect(stored?.seq).toBeGreaterThan(0);
      expect(stored?.events.map((e) => e.tx)).toEqual([written.after!.events[0]!.tx]);
      expect(stored?.events[0]!.tx).toBeGreaterThan(0);
      expect(stored?.payload).toEqual(run.payload);
    }
  });
});
