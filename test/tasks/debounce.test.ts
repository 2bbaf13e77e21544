import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { debouncedAdmission, debounceRunId } from '../../src/runtime/debounce.js';
import { composedServiceForSuite } from '../support/composed-service.js';
import { fixedClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor } from '../support/http.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';

const AT = '2026-03-01T10:00:00.000Z';
const WINDOW = { key: 'docs@abc123', windowMs: 60_000 };

describe('debounce windows', () => {
  it('name one run per key and fixed window, the same on every instance', () => {
    const at = (iso: string) => debounceRunId(WINDOW, new Date(iso));
    expect(at('2026-03-01T10:00:00.000Z')).toBe(at('2026-03-01T10:00:59.999Z'));
    expect(at('2026-03-01T10:01:00.000Z')).not.toBe(at('2026-03-01T10:00:59.999Z'));
    expect(debounceRunId({ ...WINDOW, key: 'other' }, new Date(AT))).not.toBe(at(AT));
    expect(at(AT)).toMatch(/^debounce:[0-9a-f]{32}:60000:\d+$/);
  });
});

/** Admissions of one store each, sharing what the stores share, with one fixed clock. */
function admissionsOver(stores: StateStore[]) {
  const clock = fixedClock(AT);
  return stores.map((store) => createAdmission({ store, clock, invalidator: { invalidate: async () => undefined }, onReady: () => undefined, telemetryRetention: 100 }));
}

const trigger = (content: string) => ({ type: 'summarize-content', payload: { content }, source: 'api' as const, requestedBy: 'ops', ...debouncedAdmission(WINDOW, new Date(AT)) });

describe('debounced admission', () => {
  const opened: StateStore[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(async () => {
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas);
  });

  it('admits the first trigger of a window and answers later ones debounced with its run, without telemetry', async () => {
    const store = openStateStore(join(tempDir('debounce-'), 'state.json'));
    await store.open();
    opened.push(store);
    const [admit] = admissionsOver([store]);
    const first = await admit!(trigger('first'));
    const later = await admit!(trigger('second'));
    expect(first.kind).toBe('admitted');
    expect(later).toMatchObject({ kind: 'duplicate', reason: 'debounced', run: { runId: first.run.runId } });
    expect((await store.getRun(first.run.runId))?.payload).toEqual({ content: 'first' });
    expect((await store.listAppended('telemetry', { limit: 10 })).items.map((item) => item.event)).toEqual(['queued', 'accepted']);
  });

  it.skipIf(!TEST_DATABASE_URL)('makes one run when two instances sharing PostgreSQL receive the same key in one window', async () => {
    const schema = uniqueSchema('debounce');
    schemas.push(schema);
    const stores = [0, 1].map(() => new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 4 }));
    for (const store of stores) {
      await store.open();
      opened.push(store);
    }
    const admits = admissionsOver(stores);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => admits[i % 2]!(trigger(`t-${i}`))));
    expect(outcomes.filter((o) => o.kind === 'admitted')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'duplicate' && o.reason === 'debounced')).toHaveLength(9);
    expect(new Set(outcomes.map((o) => o.run.runId)).size).toBe(1);
    expect((await stores[1]!.listRuns({ limit: 10 })).total).toBe(1);
  });
});

const TRAILING = { ...WINDOW, mode: 'trailing' as const };
const trailing = (content: string, at = AT) => ({
  type: 'summarize-content',
  payload: { content },
  source: 'api' as const,
  requestedBy: 'ops',
  ...debouncedAdmission(TRAILING, new Date(at)),
});
const WINDOW_END = '2026-03-01T10:01:00.000Z';
const claimAt = (store: StateStore, iso: string) =>
  store.claimNextRun({ typeLimits: {}, now: new Date(iso) }, (run) => ({ ...run, status: 'running', queueState: null, startedAt: iso }));

describe('trailing debounce', () => {
  const opened: StateStore[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(async () => {
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas);
  });

  it('runs once after the window with the last payload; later triggers answer debounced without telemetry; a restart keeps it', async () => {
    const path = join(tempDir('debounce-trailing-'), 'state.json');
    let store = openStateStore(path);
    await store.open();
    opened.push(store);
    const [admit] = admissionsOver([store]);
    const first = await admit!(trailing('first'));
    expect(first.kind).toBe('admitted');
    expect(first.run).toMatchObject({ status: 'pending', queueState: 'ready', notBefore: WINDOW_END, payload: { content: 'first' } });
    for (const content of ['second', 'third']) {
      expect(await admit!(trailing(content, '2026-03-01T10:00:30.000Z'))).toMatchObject({ kind: 'duplicate', reason: 'debounced', run: { runId: first.run.runId, payload: { content } } });
    }
    expect((await store.listAppended('telemetry', { limit: 10 })).items.map((item) => item.event)).toEqual(['queued', 'accepted']);
    // Another type in the window changes nothing.
    expect(await admit!({ ...trailing('other'), type: 'doc-sync' })).toMatchObject({ kind: 'duplicate', reason: 'duplicate-type-mismatch' });

    // Crash and restart: the waiting run is there, with the last payload.
    await store.close();
    opened.splice(0);
    store = openStateStore(path);
    await store.open();
    opened.push(store);
    expect(await claimAt(store, '2026-03-01T10:00:59.999Z')).toBeNull();
    const claimed = await claimAt(store, WINDOW_END);
    expect(claimed).toMatchObject({ runId: first.run.runId, payload: { content: 'third' } });
    // Started: a trigger that still names the window changes nothing and answers debounced.
    const [again] = admissionsOver([store]);
    expect(await again!(trailing('late'))).toMatchObject({ kind: 'duplicate', reason: 'debounced', run: { payload: { content: 'third' } } });
    expect((await store.listRuns({ limit: 10 })).total).toBe(1);
  });

  it.skipIf(!TEST_DATABASE_URL)('two instances sharing PostgreSQL receiving one key in one window make one run carrying the last payload', async () => {
    const schema = uniqueSchema('debounce_trailing');
    schemas.push(schema);
    const stores = [0, 1].map(() => new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 4 }));
    for (const store of stores) {
      await store.open();
      opened.push(store);
    }
    const admits = admissionsOver(stores);
    // A burst at once on both instances: one run, every other trigger debounced.
    const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => admits[i % 2]!(trailing(`burst-${i}`))));
    expect(burst.filter((o) => o.kind === 'admitted')).toHaveLength(1);
    expect(burst.filter((o) => o.kind === 'duplicate' && o.reason === 'debounced')).toHaveLength(9);
    expect(new Set(burst.map((o) => o.run.runId)).size).toBe(1);
    // Then triggers one after another, alternating instances: the last one received wins.
    for (let i = 0; i < 4; i++) await admits[i % 2]!(trailing(`then-${i}`));
    expect(await claimAt(stores[0]!, '2026-03-01T10:00:59.000Z')).toBeNull();
    const [a, b] = await Promise.all([claimAt(stores[0]!, WINDOW_END), claimAt(stores[1]!, WINDOW_END)]);
    const claimed = [a, b].filter((run) => run !== null);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ runId: burst[0]!.run.runId, payload: { content: 'then-3' } });
    expect((await stores[1]!.listRuns({ limit: 10 })).total).toBe(1);
  });
});

describe('debounce over HTTP', () => {
  const service = composedServiceForSuite();
  const api = () => apiClient(service().url);
  // A day's window: the two triggers fall in one unless the test straddles midnight UTC.
  const body = (content: string) => ({ type: 'summarize-content', payload: { content }, debounce: { key: `http-${Math.random()}`, windowMs: 86_400_000 } });

  it('answers 202 then 200 duplicate-suppressed, reason debounced, with the one run id', async () => {
    const first = body('a');
    const queued = await api().post('/api/tasks/trigger', first);
    const again = await api().post('/api/tasks/trigger', { ...first, payload: { content: 'b' } });
    expect(queued.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'duplicate-suppressed', reason: 'debounced', runId: queued.body.runId });
  });

  it('trailing: 202 then 200 debounced with the one run, which waits for the window (heldBy not-before) with the last payload; a bad payload changes nothing', async () => {
    const first = { ...body('a'), debounce: { ...body('a').debounce, mode: 'trailing' } };
    const queued = await api().post('/api/tasks/trigger', first);
    expect(queued.status).toBe(202);
    const again = await api().post('/api/tasks/trigger', { ...first, payload: { content: 'b' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'duplicate-suppressed', reason: 'debounced', runId: queued.body.runId });
    const bad = await api().post('/api/tasks/trigger', { ...first, payload: { content: 42 } });
    expect(bad.status).toBe(400);
    const run = await api().get(`/api/tasks/runs/${encodeURIComponent(queued.body.runId as string)}`);
    expect(run.body).toMatchObject({ status: 'pending', queueState: 'ready', payload: { content: 'b' }, heldBy: `not-before:${run.body.notBefore}` });
    expect(Date.parse(run.body.notBefore as string)).toBeGreaterThan(Date.now());
  });

  it('refuses debounce with an idempotencyKey, and a bad debounce, with 400 naming /body/debounce, admitting nothing', async () => {
    const before = (await api().get('/api/tasks/runs?limit=1')).body.total as number;
    for (const bad of [
      { ...body('x'), payload: { content: 'x', idempotencyKey: 'mine' } },
      { ...body('x'), debounce: { key: 'k', windowMs: 0 } },
      { ...body('x'), debounce: { key: '', windowMs: 1000 } },
      { ...body('x'), debounce: { key: 'k', windowMs: 1000, mode: 'sometimes' } },
    ]) {
      const res = await api().post('/api/tasks/trigger', bad);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^\/body\/debounce/) })]) });
    }
    expect((await api().get('/api/tasks/runs?limit=1')).body.total).toBe(before);
  });
});

describe('trailing debounce with the runner on', () => {
  const service = composedServiceForSuite({ runtime: true });
  const api = () => apiClient(service().url);

  it('starts the run only after the window, with the last payload, once', async () => {
    const windowMs = 2000;
    // Sent early in a window, so the three triggers share it.
    while (Date.now() % windowMs > 300) await new Promise((resolve) => setTimeout(resolve, 20));
    const debounce = { key: `runner-${Math.random()}`, windowMs, mode: 'trailing' };
    const replies = [];
    for (const content of ['one', 'two', 'three']) replies.push(await api().post('/api/tasks/trigger', { type: 'summarize-content', payload: { content }, debounce }));
    expect(replies.map((reply) => reply.status)).toEqual([202, 200, 200]);
    const runId = replies[0]!.body.runId as string;
    const waiting = await api().get(`/api/tasks/runs/${encodeURIComponent(runId)}`);
    expect(waiting.body).toMatchObject({ status: 'pending', queueState: 'ready' });
    const done = await waitFor(async () => {
      const run = await api().get(`/api/tasks/runs/${encodeURIComponent(runId)}`);
      return run.body.status === 'success' ? run.body : undefined;
    }, 20_000, 'the trailing run to finish');
    expect(done.payload).toEqual({ content: 'three' });
    expect(Date.parse(done.startedAt as string)).toBeGreaterThanOrEqual(Date.parse(done.notBefore as string));
    expect(done.attempt).toBe(1);
  });
});
