import { afterAll, describe, expect, it } from 'vitest';
import { responseCacheSharing } from '../../src/app.js';
import { tempDir } from '../support/config.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: two instances on one PostgreSQL skipped';

describe('response cache and the store it would go stale against', () => {
  it('is on for a store of this process alone or with a KV store, off for a shared store without one', () => {
    expect(responseCacheSharing(true, null)).toBe(true);
    expect(responseCacheSharing(true, 'redis://127.0.0.1:6379')).toBe(true);
    expect(responseCacheSharing(false, 'redis://127.0.0.1:6379')).toBe(true);
    expect(responseCacheSharing(false, null)).toBe(false);
  });
});

describe.skipIf(!TEST_DATABASE_URL)(`two instances on one PostgreSQL without a KV store (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('shared_cache');
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('answers a read on one instance with what the other just wrote, never a stale cached page', async () => {
    const config = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema), concurrency: 2, logLevel: 'warn' };
    // One after the other: the first applies the migrations.
    for (let i = 0; i < 2; i++) services.push(await startRuntimeService(config, tempDir(`orch-shared-cache-${i}-`)));
    const [a, b] = services as [RuntimeService, RuntimeService];

    const list = '/api/tasks/runs?type=doc-sync&limit=200';
    const first = await a.api.get<{ total: number }>(list);
    expect(first.status).toBe(200);

    const admitted = await b.api.trigger('doc-sync', { idempotencyKey: 'written-on-b' });
    expect(admitted.status).toBe(202);
    // With the cache on here, this read would be the page stored above: no trace of B's write.
    const after = await a.api.get<{ total: number; items: { runId: string }[] }>(list);
    expect(after.body.items.map((r) => r.runId)).toContain('written-on-b');
    expect(after.body.total).toBe(first.body.total + 1);
    expect(after.headers.get('x-svc-cache')).toBe('miss');
    const detail = await a.api.run<{ runId: string }>('written-on-b');
    expect(detail.status).toBe(200);
    expect(a.service.output.join('\n')).toContain('response cache off');
  });
});
