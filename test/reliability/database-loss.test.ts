import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { readExecutionLog } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const schema = uniqueSchema('dbloss');
const APPLICATION = `orch-dbloss-${process.pid}`;
const TRIGGERS = 400;
const skipReason = TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL needed: skipped)';

/** Ends every connection the service under test holds (it names itself by application_name). */
async function cutConnections(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ ended: boolean }>(
    'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
    [APPLICATION],
  );
  return rows.filter((r) => r.ended).length;
}

describe.skipIf(skipReason !== '')(`the PostgreSQL store losing its connections under load${skipReason}`, () => {
  let service: RuntimeService | undefined;
  let db: pg.Client | undefined;

  afterAll(async () => {
    await service?.service.kill();
    await db?.end();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('answers 503 unavailable while its connections are cut, never 500, keeps running, loses nothing and runs nothing twice', async () => {
    const url = new URL(postgresUrlWithSchema(TEST_DATABASE_URL!, schema));
    url.searchParams.set('application_name', APPLICATION);
    service = await startRuntimeService({ databaseUrl: url.toString(), concurrency: 4, runLeaseMs: 10_000, logLevel: 'warn' });
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const log = join(tempDir('orch-dbloss-log-'), 'executions.jsonl');
    writeFileSync(log, '');

    // Connections are cut every 150 ms while the triggers arrive and the runs execute.
    let cutting = true;
    let cuts = 0;
    const cutter = (async () => {
      while (cutting) {
        cuts += await cutConnections(db!);
        await new Promise((r) => setTimeout(r, 150));
      }
    })();

    const replies: Array<{ key: string; status: number; body: { error?: { code?: string; requestId?: string } } }> = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < TRIGGERS) {
          const key = `loss-${next++}`;
          const res = await service!.api.trigger('summarize-content', { idempotencyKey: key, content: `work ${key}`, log });
          replies.push({ key, status: res.status, body: res.body as never });
        }
      }),
    );
    // Keep cutting for a while after the last trigger so finishes and claims meet it too.
    await new Promise((r) => setTimeout(r, 1500));
    cutting = false;
    await cutter;
    expect(cuts).toBeGreaterThan(5);

    // Every answer is an acknowledgement or a documented 503, in the error shape.
    expect(replies.filter((r) => r.status !== 202 && r.status !== 503).map((r) => [r.key, r.status])).toEqual([]);
    const refused = replies.filter((r) => r.status === 503);
    for (const r of refused) expect(r.body.error?.code).toBe('unavailable');
    const acknowledged = replies.filter((r) => r.status === 202).map((r) => r.key);
    expect(acknowledged.length).toBeGreaterThan(0);

    // The service is still there and heals by itself.
    expect(service.service.child.exitCode).toBeNull();
    await waitFor(async () => {
      const health = await service!.api.get('/api/persistence/health');
      return health.status === 200 ? true : undefined;
    }, 30_000, 'the persistence health to answer');

    // Every acknowledged key reaches success; refused keys were never stored.
    const finished = await waitFor(
      async () => {
        const { rows } = await db!.query<{ run_id: string; status: string }>(`SELECT run_id, status FROM "${schema}".runs WHERE run_id LIKE 'loss-%'`);
        const done = rows.filter((r) => r.status === 'success' || r.status === 'failed');
        return done.length >= acknowledged.length ? rows : undefined;
      },
      120_000,
      'every acknowledged run to finish',
    );
    const stored = new Map(finished.map((r) => [r.run_id, r.status]));
    expect(acknowledged.filter((k) => stored.get(k) !== 'success')).toEqual([]);
    // A 503 means the admission did not commit, or it committed and its answer was lost: such a
    // key may exist, but then it too ran to success (nothing half-admitted).
    for (const r of refused) if (stored.has(r.key)) expect(stored.get(r.key)).toBe('success');

    // Exactly once by the handler's own log: one start and one end per stored run.
    const executions = readExecutionLog(log);
    for (const key of stored.keys()) {
      expect(executions.filter((e) => e.runId === key && e.event === 'end'), key).toHaveLength(1);
      expect(executions.filter((e) => e.runId === key && e.event === 'start'), key).toHaveLength(1);
    }
    expect(service.service.output.some((l) => l.includes('"level":50') && l.includes('uncaught'))).toBe(false);
  });
});
