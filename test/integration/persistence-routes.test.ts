import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

interface Variant {
  name: string;
  available: boolean;
  config: () => Record<string, unknown>;
  activeStore: string;
}

const schema = uniqueSchema('routes');
const VARIANTS: Variant[] = [
  { name: 'file store', available: true, config: () => ({}), activeStore: 'file' },
  {
    name: TEST_DATABASE_URL ? 'PostgreSQL store' : 'PostgreSQL store (TEST_DATABASE_URL unset: skipped)',
    available: TEST_DATABASE_URL !== undefined,
    config: () => ({ databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) }),
    activeStore: 'postgres',
  },
];

afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [schema]);
});

describe.each(VARIANTS)('persistence routes on the $name', (variant) => {
  let svc: RuntimeService;

  beforeAll(async () => {
    if (!variant.available) return;
    svc = await startRuntimeService({ concurrency: 2, ...variant.config() });
    for (let i = 0; i < 5; i++) {
      const res = await svc.api.trigger('summarize-content', { idempotencyKey: `hist-${i}`, content: `record ${i}` });
      expect(res.status).toBe(202);
    }
    for (let i = 0; i < 5; i++) await waitForTerminal(svc.api, `hist-${i}`);
  }, 60_000);
  afterAll(async () => {
    await svc?.service.kill();
  });

  it.skipIf(!variant.available)('summary counts runs by status and names the active store', async () => {
    const res = await svc.api.get('/api/persistence/summary');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'healthy',
      activeStore: variant.activeStore,
      store: { status: 'ok', shared: variant.activeStore === 'postgres' },
      coordination: { store: 'memory' },
    });
    // Five triggered runs plus the internal startup run.
    expect(res.body.runs.byStatus.success).toBe(6);
    expect(res.body.runs.internal).toBe(1);
    expect(res.body.collections.runs).toBe(6);
    expect(res.body.state.tasksProcessed).toBeGreaterThanOrEqual(6);
    expect((await svc.api.get('/api/persistence/summary', null)).status).toBe(401);
  });

  it.skipIf(!variant.available)('historical pages runs newest first without payloads, and other collections', async () => {
    const first = await svc.api.get('/api/persistence/historical?collection=runs&limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ collection: 'runs', total: 6, limit: 2, offset: 0 });
    expect(first.body.items.map((r: { runId: string }) => r.runId)).toEqual(['hist-4', 'hist-3']);
    expect(first.body.items[0]).not.toHaveProperty('payload');
    expect(first.body.items[0]).not.toHaveProperty('result');
    const next = await svc.api.get('/api/persistence/historical?collection=runs&limit=2&offset=2');
    expect(next.body.items.map((r: { runId: string }) => r.runId)).toEqual(['hist-2', 'hist-1']);
    const history = await svc.api.get('/api/persistence/historical?collection=taskHistory&limit=3');
    expect(history.body.items).toHaveLength(3);
    expect(history.body.items[0]).toMatchObject({ type: 'summarize-content', status: 'completed' });
    const telemetry = await svc.api.get('/api/persistence/historical?collection=telemetry');
    expect(telemetry.body.total).toBeGreaterThanOrEqual(10);
    expect((await svc.api.get('/api/persistence/historical?collection=secrets')).status).toBe(400);
    expect((await svc.api.get('/api/persistence/historical?limit=500')).status).toBe(400);
  });

  it.skipIf(!variant.available)('export is admin only and streams every record as NDJSON with counts', async () => {
    expect((await svc.api.get('/api/persistence/export', TEST_KEYS.operator)).status).toBe(403);
    const res = await fetch(`${svc.service.url}/api/persistence/export`, { headers: { authorization: `Bearer ${TEST_KEYS.admin}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { kind: string; collection?: string; id?: string; record?: Record<string, unknown>; counts?: Record<string, number> });
    expect(lines[0]).toMatchObject({ kind: 'header', format: 'orchestrator-state-export', version: 1, store: { kind: variant.activeStore } });
    const end = lines.at(-1)!;
    expect(end.kind).toBe('end');
    const records = lines.filter((l) => l.kind === 'record');
    expect(end.counts!.runs).toBe(6);
    expect(records.filter((l) => l.collection === 'runs').map((l) => l.id)).toEqual(expect.arrayContaining(['hist-0', 'hist-4']));
    const runRecord = records.find((l) => l.id === 'hist-2')!.record!;
    expect(runRecord).toMatchObject({ runId: 'hist-2', status: 'success', payload: { content: 'record 2' } });
    const total = Object.values(end.counts!).reduce((a, b) => a + b, 0);
    expect(records).toHaveLength(total);
    expect(JSON.stringify(lines)).not.toContain(TEST_KEYS.admin);
  });
});
