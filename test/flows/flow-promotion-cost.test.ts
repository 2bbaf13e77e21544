import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_TARGET } from '../../src/config/store-targets.js';
import { openStateStore } from '../../src/store/open.js';
import type { RunQuery, StateStore } from '../../src/store/types.js';
import { markFailed, markRunning, markSucceeded } from '../../src/runtime/run-transitions.js';
import { accountingFor } from '../../src/runtime/accounting.js';
import { tempDir } from '../support/config.js';
import { flowHarness, summarizeStep } from '../support/flow-harness.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const step = summarizeStep;

/** What a store was asked: every listing's query, every run and document read by id, every collection read whole. */
function recorded(store: StateStore) {
  const log = { listRuns: [] as RunQuery[], getRun: [] as string[], getDoc: [] as string[], wholeCollections: [] as string[] };
  const proxy = new Proxy(store, {
    get(target, prop) {
      if (prop === 'listRuns') return (q: RunQuery) => (log.listRuns.push(q), target.listRuns(q));
      if (prop === 'getRun') return (id: string) => (log.getRun.push(id), target.getRun(id));
      if (prop === 'getDoc') return (collection: string, id: string) => (log.getDoc.push(`${collection}/${id}`), target.getDoc(collection, id));
      if (prop === 'listDocs' || prop === 'listDocEntries') {
        return (collection: string) => (log.wholeCollections.push(collection), (target[prop] as (c: string) => Promise<unknown>)(collection));
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const clear = () => {
    log.listRuns.length = 0;
    log.getRun.length = 0;
    log.getDoc.length = 0;
    log.wholeCollections.length = 0;
  };
  return { store: proxy, log, clear };
}

/** Ends a ready run `success` without telling the flows: a promotion an instance died before making. */
async function succeedUntold(store: StateStore, runId: string): Promise<void> {
  const now = new Date();
  await store.mutateRun(runId, (run) => (run && run.queueState === 'ready' ? markRunning(run, 'owner', new Date(now.getTime() + 60_000), now) : null));
  await store.mutateRun(runId, (run) =>
    run ? markSucceeded(run, now, { result: {}, accounting: accountingFor(undefined, 0), operatorSummary: null, recommendedNextActions: null, specialistContract: null }) : null,
  );
}

const schemas: string[] = [];
const stores: Array<[string, (() => StateStore) | null]> = [
  ['file store', () => openStateStore(join(tempDir('orch-flow-cost-'), 'state.json'))],
  ['SQLite', () => openStateStore(`sql:${join(tempDir('orch-flow-cost-'), 'state.sqlite')}`)],
  [
    `PostgreSQL${TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL unset: skipped)'}`,
    TEST_DATABASE_URL
      ? () => {
          const schema = uniqueSchema('flowcost');
          schemas.push(schema);
          return openStateStore(POSTGRES_TARGET, { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) });
        }
      : null,
  ],
];

describe.each(stores)('flow promotion on the %s reads what changed, not the whole flow', (_name, open) => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas.splice(0));
  });
  async function setup() {
    store = open!();
    await store.open();
    const rec = recorded(store);
    return { ...rec, h: flowHarness(rec.store) };
  }
  const LEAVES = Array.from({ length: 12 }, (_, i) => `l${i}`);

  it.skipIf(!open)("a settled step reads its dependents and their dependencies by id; the flow's other steps are not read", async () => {
    const { h, log, clear } = await setup();
    await h.flows.create({
      id: 'fan',
      requestedBy: 'ops',
      steps: [step('root'), ...LEAVES.map((k) => step(k, ['root'])), step('join', LEAVES), step('o1'), step('o2', ['o1']), step('o3', ['o2'])],
    });
    await h.finish('flow:fan:root', true);
    for (const leaf of LEAVES.slice(0, -1)) await h.finish(`flow:fan:${leaf}`, true);
    expect((await h.states('fan')).join).toBe('waiting');
    clear();
    await h.finish(`flow:fan:${LEAVES.at(-1)}`, true);
    expect(log.listRuns.filter((q) => q.idPrefix !== undefined)).toEqual([]);
    // Listings only by the flow id index, one status each (whether a run has not ended).
    expect(log.listRuns.every((q) => q.flowId === 'fan' && q.status !== undefined && (q.limit ?? 0) <= 1)).toBe(true);
    const read = new Set(log.getRun);
    expect(read).toEqual(new Set(['flow:fan:join', ...LEAVES.map((k) => `flow:fan:${k}`)]));
    expect(log.wholeCollections).toEqual([]);
    const join = (await h.store.getRun('flow:fan:join'))!;
    expect(join).toMatchObject({ status: 'pending', queueState: 'ready' });
  });

  it.skipIf(!open)('the sweep finds waiting steps whose dependencies ended through the flow id index, and promotes them once', async () => {
    const { h, log, clear } = await setup();
    await h.flows.create({ id: 'missed', requestedBy: 'ops', steps: [step('a'), step('b', ['a']), step('c', ['b']), step('d', ['c'])] });
    await succeedUntold(h.store, 'flow:missed:a');
    expect((await h.store.getRun('flow:missed:b'))!.status).toBe('waiting');
    clear();
    await Promise.all([h.flows.sweep(), h.flows.sweep()]);
    expect(log.listRuns.filter((q) => q.idPrefix !== undefined)).toEqual([]);
    expect(log.listRuns.every((q) => q.flowId === 'missed' && q.status !== undefined)).toBe(true);
    // d waits on a waiting step: never read (c is, once b left waiting, by the second sweep).
    expect(new Set(log.getRun)).toEqual(new Set(['flow:missed:a', 'flow:missed:b', 'flow:missed:c']));
    const b = (await h.store.getRun('flow:missed:b'))!;
    expect(b).toMatchObject({ status: 'pending', queueState: 'ready' });
    expect(b.events.filter((e) => e.name === 'dependencies-ended')).toHaveLength(1);
    expect(await h.states('missed')).toMatchObject({ a: 'success', b: 'queued', c: 'waiting', d: 'waiting' });
  });

  it.skipIf(!open)("a waiting step cancelled by its run ends cancelled, its dependents' policy applies, and the flow ends", async () => {
    const { h } = await setup();
    await h.flows.create({
      id: 'cw',
      requestedBy: 'ops',
      steps: [step('a'), step('b', ['a']), step('c', ['b'], { onDependencyFailure: 'skip' }), step('d', ['b'], { onDependencyFailure: 'run' }), step('x')],
    });
    expect(await h.cancelRun('flow:cw:b')).toMatchObject({ status: 'cancelled' });
    expect((await h.store.getRun('flow:cw:b'))!).toMatchObject({ status: 'cancelled', queueState: null, cancellation: { requestedBy: expect.any(String) } });
    expect((await h.store.getRun('flow:cw:c'))!).toMatchObject({ status: 'skipped', flowStep: { skipped: { policy: 'skip' } } });
    expect(await h.states('cw')).toEqual({ a: 'queued', b: 'cancelled', c: 'skipped', d: 'queued', x: 'queued' });
    for (const key of ['a', 'd', 'x']) await h.finish(`flow:cw:${key}`, true);
    // A cancelled step is no success: the flow failed.
    expect((await h.flows.get('cw')).status).toBe('failed');
  });

  it.skipIf(!open)("a wide fan-in reads the join's dependencies from the one that ended up to the first group with one not ended, and not the flow document again", async () => {
    const { h, log, clear } = await setup();
    const leaves = Array.from({ length: 100 }, (_, i) => `l${String(i).padStart(2, '0')}`);
    await h.flows.create({ id: 'wide', requestedBy: 'ops', steps: [step('root'), ...leaves.map((k) => step(k, ['root'])), step('join', leaves)] });
    await h.finish('flow:wide:root', true);
    clear();
    await h.finish('flow:wide:l99', true);
    // l00 has not ended: the first group of 32 answers that the join waits on.
    expect(new Set(log.getRun)).toEqual(new Set(['flow:wide:l99', 'flow:wide:join', ...leaves.slice(0, 32).map((k) => `flow:wide:${k}`)]));
    // The join seen waiting says the flow has not ended: no listing.
    expect(log.listRuns).toEqual([]);
    // The definition is written once and never changed: read once, not by every pass.
    expect(log.getDoc.filter((id) => id.startsWith('flows/'))).toEqual([]);
    // Leaves ending in admission order: each pass reads from just after the leaf that ended, so
    // one group (l51..l82) answers, not every leaf ended so far.
    for (const leaf of leaves.slice(0, 50)) await h.finish(`flow:wide:${leaf}`, true);
    clear();
    await h.finish('flow:wide:l50', true);
    expect(new Set(log.getRun)).toEqual(new Set(['flow:wide:l50', 'flow:wide:join', ...leaves.slice(51, 83).map((k) => `flow:wide:${k}`)]));
    for (const leaf of leaves.slice(51, -1)) await h.finish(`flow:wide:${leaf}`, true);
    expect((await h.store.getRun('flow:wide:join'))!).toMatchObject({ status: 'pending', queueState: 'ready' });
    await h.finish('flow:wide:join', true);
    expect((await h.flows.get('wide')).status).toBe('success');
  });

  it.skipIf(!open)("the sweep reads an open flow's skipped runs once, and a failure under `fail` is recorded before its skip", async () => {
    const { h, log, clear } = await setup();
    await h.flows.create({
      id: 'sk',
      requestedBy: 'ops',
      steps: [step('a'), step('b', ['a'], { onDependencyFailure: 'skip' }), step('d', ['b'], { onDependencyFailure: 'skip' }), step('c')],
    });
    await h.finish('flow:sk:a', false);
    expect(await h.states('sk')).toMatchObject({ b: 'skipped', d: 'skipped', c: 'queued' });
    clear();
    await h.flows.sweep();
    await h.flows.sweep();
    expect(log.listRuns.filter((q) => q.status === 'skipped')).toEqual([]);

    await h.flows.create({ id: 'ff', requestedBy: 'ops', steps: [step('a'), step('b', ['a']), step('e', ['b']), step('c')] });
    await h.finish('flow:ff:a', false);
    expect(await h.store.getDoc('flow-failed', 'ff')).toMatchObject({ step: 'b' });
    expect(await h.states('ff')).toMatchObject({ b: 'skipped', e: 'skipped', c: 'queued' });
    await h.finish('flow:ff:c', true);
    expect((await h.flows.get('ff')).status).toBe('failed');
  });

  it.skipIf(!open)('a failure record whose skip a crash cut: the next pass skips every waiting step and the flow ends failed', async () => {
    const { h } = await setup();
    await h.flows.create({ id: 'cut', requestedBy: 'ops', steps: [step('a'), step('b', ['a']), step('c', ['b']), step('x')] });
    await h.finish('flow:cut:x', true);
    // a failed and the pass recorded the flow's failure, then died before skipping b.
    await h.start('flow:cut:a');
    await h.store.mutateRun('flow:cut:a', (run) =>
      run ? markFailed(run, new Date(), { result: {}, accounting: accountingFor(undefined, 0), operatorSummary: null, recommendedNextActions: null, specialistContract: null, error: 'boom', failureReason: 'worker-logical-failure', retry: null }) : null,
    );
    await h.store.insertDoc('flow-failed', 'cut', { at: new Date().toISOString(), step: 'b' });
    await h.flows.sweep();
    expect(await h.states('cut')).toEqual({ a: 'failed', b: 'skipped', c: 'skipped', x: 'success' });
    expect((await h.store.getRun('flow:cut:b'))!.flowStep?.skipped?.policy).toBe('fail');
    expect((await h.flows.get('cut')).status).toBe('failed');
  });

  it.skipIf(!open)('lists flows newest first a page at a time by cursor, filtered by status and time, without reading every flow', async () => {
    const { h, log, clear } = await setup();
    for (const id of ['f1', 'f2', 'f3', 'f4', 'f5']) {
      await h.flows.create({ id, requestedBy: 'ops', steps: [step('only')] });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await h.finish('flow:f2:only', true);
    await h.finish('flow:f4:only', true);
    clear();
    const first = await h.flows.list({ limit: 2 });
    expect(first.items.map((f) => f.flowId)).toEqual(['f5', 'f4']);
    const second = await h.flows.list({ limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((f) => f.flowId)).toEqual(['f3', 'f2']);
    const third = await h.flows.list({ limit: 2, cursor: second.nextCursor! });
    expect(third).toEqual({ items: [expect.objectContaining({ flowId: 'f1' })], nextCursor: null });
    expect((await h.flows.list({ status: 'success' })).items.map((f) => f.flowId)).toEqual(['f4', 'f2']);
    const f3 = await h.flows.get('f3');
    expect((await h.flows.list({ from: f3.createdAt })).items.map((f) => f.flowId)).toEqual(['f5', 'f4', 'f3']);
    expect((await h.flows.list({ to: f3.createdAt })).items.map((f) => f.flowId)).toEqual(['f2', 'f1']);
    expect(log.wholeCollections).toEqual([]);
    await expect(h.flows.list({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'invalid_request' });

    // A store whose flows were admitted before the listing existed: listed once, at start.
    for (const { id } of await h.store.listDocEntries('flow-list')) await h.store.deleteDoc('flow-list', id);
    await h.store.deleteDoc('flow-list-built', 'v1');
    expect((await h.flows.list({})).items).toEqual([]);
    await h.flows.buildListing();
    expect((await h.flows.list({})).items.map((f) => f.flowId)).toEqual(['f5', 'f4', 'f3', 'f2', 'f1']);
  });
});

/** Run records as stored before flow steps had status words of their own. */
function oldStepRecords() {
  return [
    makeRun({ runId: 'flow:old:w', source: 'flow', status: 'pending', queueState: 'waiting', flowStep: { flowId: 'old', key: 'w' } }),
    makeRun({ runId: 'flow:old:s', source: 'flow', status: 'cancelled', queueState: null, flowStep: { flowId: 'old', key: 's', skipped: { policy: 'skip', reason: 'r' } } }),
    makeRun({ runId: 'plain-cancelled', status: 'cancelled', queueState: null }),
    makeRun({ runId: 'plain-pending', status: 'pending', queueState: 'ready' }),
  ];
}

async function writeOld(store: StateStore): Promise<void> {
  for (const run of oldStepRecords()) await store.mutateRun(run.runId, insertIfAbsent(run));
}

async function expectUpgraded(store: StateStore): Promise<void> {
  const status = async (id: string) => (await store.getRun(id))!.status;
  expect(await status('flow:old:w')).toBe('waiting');
  expect(await status('flow:old:s')).toBe('skipped');
  // Runs of no flow keep their words.
  expect(await status('plain-cancelled')).toBe('cancelled');
  expect(await status('plain-pending')).toBe('pending');
  expect((await store.listRuns({ status: 'waiting', includeInternal: true })).items.map((r) => r.runId)).toEqual(['flow:old:w']);
  expect((await store.listRuns({ flowId: 'old', status: 'skipped', includeInternal: true })).items.map((r) => r.runId)).toEqual(['flow:old:s']);
}

describe('runs stored before flow steps had their own status words are read in the new words', () => {
  const open: StateStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas.splice(0));
  });
  const opened = async (store: StateStore) => {
    await store.open();
    open.push(store);
    return store;
  };

  it('file store: upgraded as its snapshot and journal are read', async () => {
    const path = join(tempDir('orch-flow-old-'), 'state.json');
    const store = await opened(openStateStore(path));
    await writeOld(store);
    await store.close();
    open.length = 0;
    await expectUpgraded(await opened(openStateStore(path)));
  });

  it('SQLite: layout 9 rewrites the rows', async () => {
    const path = join(tempDir('orch-flow-old-'), 'state.sqlite');
    const store = await opened(openStateStore(`sql:${path}`));
    await writeOld(store);
    await store.close();
    open.length = 0;
    // Back to layout 8, as a database written by the build before (layout 10 undone first).
    const db = new Database(path);
    db.exec('DROP INDEX runs_ready_heads; DROP INDEX runs_ready_not_before; ALTER TABLE runs DROP COLUMN not_before; DELETE FROM schema_migrations WHERE version = 10; DROP INDEX runs_flow; ALTER TABLE runs DROP COLUMN flow_id; DELETE FROM schema_migrations WHERE version = 9;');
    expect(db.prepare("SELECT status FROM runs WHERE run_id = 'flow:old:w'").get()).toEqual({ status: 'pending' });
    db.close();
    await expectUpgraded(await opened(openStateStore(`sql:${path}`)));
  });

  it.skipIf(!TEST_DATABASE_URL)('PostgreSQL: migration 9 rewrites the rows, and a flow read by status uses the runs_flow index', async () => {
    const schema = uniqueSchema('flowold');
    schemas.push(schema);
    const url = postgresUrlWithSchema(TEST_DATABASE_URL!, schema);
    const store = await opened(openStateStore(POSTGRES_TARGET, { databaseUrl: url }));
    await writeOld(store);
    await store.close();
    open.length = 0;
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${schema}"`);
      await client.query('DROP INDEX runs_tags; DELETE FROM schema_migrations WHERE version = 11; DROP INDEX runs_ready_heads; DROP INDEX runs_ready_not_before; ALTER TABLE runs DROP COLUMN not_before; DELETE FROM schema_migrations WHERE version = 10; DROP INDEX runs_flow; ALTER TABLE runs DROP COLUMN flow_id; DELETE FROM schema_migrations WHERE version = 9;');
      expect((await client.query("SELECT status FROM runs WHERE run_id = 'flow:old:s'")).rows).toEqual([{ status: 'cancelled' }]);
      await expectUpgraded(await opened(openStateStore(POSTGRES_TARGET, { databaseUrl: url })));
      await client.query('SET enable_seqscan = off');
      // The listing's own query (src/store/postgres/read-runs.ts), as a flow's promotion sends it.
      for (const order of ['ASC', 'DESC']) {
        const plan = await client.query(`EXPLAIN SELECT doc FROM runs WHERE flow_id = $1 AND status = $2 ORDER BY seq ${order} LIMIT 1`, ['old', 'waiting']);
        expect(plan.rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n')).toContain('runs_flow');
      }
    } finally {
      await client.end();
    }
  });
});
