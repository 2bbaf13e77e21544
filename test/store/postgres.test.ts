import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { recoverInterrupted, isOwnedAttempt, markRunning } from '../../src/tasks/run-transitions.js';
import { describeStoreConformance } from './conformance.js';
import { insertIfAbsent, makeRun } from './fixtures/runs.js';
import { postgresUrlWithSchema, TEST_DATABASE_URL, dropTestSchemas, uniqueSchema } from '../support/postgres.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: PostgreSQL store tests skipped';
const schemasByDir = new Map<string, string>();

/** One schema per conformance directory, so reopening a directory reaches the same data. */
function storeFor(dir: string): PostgresStateStore {
  let schema = schemasByDir.get(dir);
  if (schema === undefined) {
    schema = uniqueSchema(`conf_${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`);
    schemasByDir.set(dir, schema);
  }
  return new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 8 });
}

afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [...schemasByDir.values()]);
});

describe.skipIf(!TEST_DATABASE_URL)(`PostgresStateStore (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  describeStoreConformance('PostgresStateStore', storeFor, { shared: true });

  describe('on PostgreSQL', () => {
    const stores: PostgresStateStore[] = [];
    async function open(dir = `pg-${randomBytes(4).toString('hex')}`, stateKey?: string): Promise<PostgresStateStore> {
      const base = storeFor(dir);
      const store = stateKey === undefined ? base : (openStateStore(`docdb:${stateKey}`, { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, base.schema) }) as PostgresStateStore);
      await store.open();
      stores.push(store);
      return store;
    }
    afterAll(async () => {
      for (const store of stores) await store.close();
    });

    it('applies versioned migrations once under an advisory lock when instances start together', async () => {
      const dir = 'migrations-race';
      const starting = Array.from({ length: 4 }, () => storeFor(dir));
      await Promise.all(starting.map((s) => s.open()));
      stores.push(...starting);
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT version, description FROM "${starting[0]!.schema}".schema_migrations`);
        expect(rows).toEqual([{ version: 1, description: 'runs, state documents, task history, append collections, keyed documents' }]);
      } finally {
        await client.end();
      }
      expect((await starting[0]!.health()).detail).toMatch(/^PostgreSQL \d+\.\d+.*, schema .+, layout version 1, shared by instances$/);
    });

    it('keeps each docdb:<key> OrchestratorState apart while runs are shared', async () => {
      const dir = 'docdb-keys';
      const alpha = await open(dir, 'alpha');
      const beta = await open(dir, 'beta');
      expect(alpha.target).toBe('docdb:alpha');
      await alpha.mutateState((s) => ({ ...s, notes: 'alpha notes' }));
      await alpha.recordTask({ type: 'doc-sync', status: 'completed', timestamp: '2026-01-01T00:00:00Z', durationMs: 3 });
      expect(await beta.getState()).toMatchObject({ tasksProcessed: 0, taskHistory: [] });
      expect((await beta.getState()).notes).toBeUndefined();
      expect(await alpha.getState()).toMatchObject({ tasksProcessed: 1, notes: 'alpha notes' });
      await alpha.mutateRun('shared-run', insertIfAbsent(makeRun({ runId: 'shared-run' })));
      expect((await beta.getRun('shared-run'))?.runId).toBe('shared-run');
    });

    it('fences a stale owner: once its lease expired and another instance recovered the run, its finish is refused', async () => {
      const dir = 'fencing';
      const a = await open(dir);
      const b = await open(dir);
      await a.mutateRun('fenced', insertIfAbsent(makeRun({ runId: 'fenced' })));
      const t0 = new Date('2026-01-01T00:00:00Z');
      const claimed = await a.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'instance-a', new Date(t0.getTime() + 1000), t0));
      expect(claimed).toMatchObject({ status: 'running', attempt: 1, claim: { ownerId: 'instance-a' } });

      // Instance b sees the lease expired (a is stalled), recovers the run and claims the new attempt.
      const later = new Date(t0.getTime() + 5000);
      const recovered = await b.mutateRun('fenced', (cur) =>
        cur && cur.status === 'running' && new Date(cur.claim!.leaseUntil) <= later ? recoverInterrupted(cur, later) : null,
      );
      expect(recovered.after).toMatchObject({ status: 'pending', queueState: 'ready', attempt: 2 });
      const reclaimed = await b.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'instance-b', new Date(later.getTime() + 60_000), later));
      expect(reclaimed).toMatchObject({ attempt: 2, claim: { ownerId: 'instance-b' } });

      // a wakes up and tries to finish its attempt 1: the guard inside the row lock refuses it.
      const staleFinish = await a.mutateRun('fenced', (cur) =>
        isOwnedAttempt(cur, 'instance-a', 1) ? { ...cur, status: 'success', queueState: null } : null,
      );
      expect(staleFinish.changed).toBe(false);
      const finish = await b.mutateRun('fenced', (cur) =>
        isOwnedAttempt(cur, 'instance-b', 2) ? { ...cur, status: 'success', queueState: null, claim: null } : null,
      );
      expect(finish.after).toMatchObject({ status: 'success', attempt: 2 });
    });

    it('claims in parallel from three instances without taking a run twice', async () => {
      const dir = 'parallel-claims';
      const instances = [await open(dir), await open(dir), await open(dir)];
      for (let i = 0; i < 60; i++) await instances[i % 3]!.mutateRun(`p-${i}`, insertIfAbsent(makeRun({ runId: `p-${i}` })));
      const claims = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          instances[i % 3]!.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, `instance-${i % 3}`, new Date(), new Date())),
        ),
      );
      const taken = claims.filter((c) => c !== null).map((c) => c!.runId);
      expect(taken).toHaveLength(60);
      expect(new Set(taken).size).toBe(60);
    });

    it('never shows a credential in its target or health', async () => {
      const store = new PostgresStateStore('postgres://user:secret-password@127.0.0.1:5432/test?schema=abc');
      expect(store.target).toBe('postgres:127.0.0.1:5432/test?schema=abc');
      expect(JSON.stringify(await store.health())).not.toContain('secret-password');
    });
  });
});
