import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitFor } from '../support/http.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: an admission-only instance beside a running one on PostgreSQL skipped';
const KEYS = Array.from({ length: 12 }, (_, i) => `admitted-here-${i}`);

interface RunView {
  runId: string;
  status: string;
}

describe.skipIf(!TEST_DATABASE_URL)(`an instance with concurrency 0 on one PostgreSQL (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('admit_only');
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('admits and answers 202 but runs nothing; an instance with run slots runs each admitted run once', async () => {
    const databaseUrl = postgresUrlWithSchema(TEST_DATABASE_URL!, schema);
    const admitOnly = await startRuntimeService({ databaseUrl, concurrency: 0, logLevel: 'warn' }, tempDir('orch-admit-only-'));
    services.push(admitOnly);
    const api = admitOnly.api;

    for (const key of KEYS) {
      const res = await api.trigger<{ runId: string; status: string }>('doc-sync', { idempotencyKey: key });
      expect(res.status).toBe(202);
      expect(res.body.runId).toBe(key);
    }
    // Alone, the admission-only instance leaves them queued: nothing claims them.
    await new Promise((r) => setTimeout(r, 1500));
    for (const key of KEYS) {
      const run = await api.run<RunView>(key);
      expect(run.status).toBe(200);
      expect(run.body.status).toBe('pending');
    }
    const health = await api.get<{ truthLayers: { configured: { summary: string } } }>('/api/health/extended');
    expect(health.status).toBe(200);
    expect(health.body.truthLayers.configured.summary).toContain('concurrency 0 (admits only; other instances run the runs)');

    // An instance with slots joins the fleet and runs them; the admission-only one sees them finish.
    services.push(await startRuntimeService({ databaseUrl, concurrency: 4, logLevel: 'warn' }, tempDir('orch-runs-here-')));
    for (const key of KEYS) {
      const run = await waitFor(
        async () => {
          const res = await api.run<RunView & { attempt?: number }>(key);
          return res.status === 200 && res.body.status === 'success' ? res.body : undefined;
        },
        20_000,
        `${key} to succeed`,
      );
      expect(run.attempt ?? 1).toBe(1);
    }
    const succeeded = await api.get<{ total: number }>('/api/tasks/runs?type=doc-sync&status=success&limit=1');
    expect(succeeded.body.total).toBe(KEYS.length);
  }, 60_000);
});
