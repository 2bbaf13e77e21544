import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flowStepRunId } from '../../src/flows/flow-definition.js';
import { openStateStore } from '../../src/store/open.js';
import { POSTGRES_TARGET } from '../../src/config/store-targets.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir } from '../support/config.js';
import { flowHarness, summarizeStep } from '../support/flow-harness.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { refusal } from '../support/domain-errors.js';

const step = summarizeStep;

/** Index, then audit and test in parallel, then judge once both ended: fan-out and fan-in. */
const DIAMOND = [step('index'), step('audit', ['index']), step('tests', ['index']), step('judge', ['audit', 'tests'])];

const schemas: string[] = [];
const stores: Array<[string, (() => StateStore) | null]> = [
  ['file store', () => openStateStore(join(tempDir('orch-flow-'), 'state.json'))],
  ['SQLite', () => openStateStore(`sql:${join(tempDir('orch-flow-'), 'state.sqlite')}`)],
  [
    `PostgreSQL${TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL unset: skipped)'}`,
    TEST_DATABASE_URL
      ? () => {
          const schema = uniqueSchema('flows');
          schemas.push(schema);
          return openStateStore(POSTGRES_TARGET, { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) });
        }
      : null,
  ],
];

describe.each(stores)('flows on the %s: admission all or none, waiting steps, promotion once', (_name, open) => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas.splice(0));
  });

  async function setup() {
    store = open!();
    await store.open();
    return flowHarness(store);
  }

  it.skipIf(!open)('admits every step, only the roots claimable; each dependent becomes pending once its last dependency ended', async () => {
    const h = await setup();
    const created = await h.flows.create({ id: 'release', steps: DIAMOND, requestedBy: 'ops' });
    expect(created).toEqual({ kind: 'admitted', flowId: 'release', runIds: ['index', 'audit', 'tests', 'judge'].map((k) => flowStepRunId('release', k)) });
    expect(await h.states('release')).toEqual({ index: 'queued', audit: 'waiting', tests: 'waiting', judge: 'waiting' });
    const judge = (await h.store.getRun('flow:release:judge'))!;
    expect(judge).toMatchObject({ status: 'waiting', queueState: 'waiting', source: 'flow', flowStep: { flowId: 'release', key: 'judge' } });

    // A claim takes the root only: waiting steps hold no slot.
    const claimed = await h.store.claimRuns({ typeLimits: {} }, 10, (run) => ({ ...run, status: 'running', queueState: null }));
    expect(claimed.map((r) => r.runId)).toEqual(['flow:release:index']);

    await h.finish('flow:release:index', true);
    expect(await h.states('release')).toEqual({ index: 'success', audit: 'queued', tests: 'queued', judge: 'waiting' });
    await h.finish('flow:release:audit', true);
    expect((await h.states('release')).judge).toBe('waiting');
    await h.finish('flow:release:tests', true);
    expect((await h.states('release')).judge).toBe('queued');
    const promoted = (await h.store.getRun('flow:release:judge'))!;
    expect(promoted.events.filter((e) => e.name === 'dependencies-ended')).toHaveLength(1);

    await h.finish('flow:release:judge', true);
    // The change feed narrowed to the flow's steps (GET /api/flows/:id/events reads it so).
    await h.admit({ type: 'summarize-content', payload: { content: 'not a step' }, source: 'api', requestedBy: 'ops', forceRunId: 'flow-like-but-not' });
    const feed = await h.store.readRunEvents(null, 500, { runIdPrefix: 'flow:release:', includeInternal: true });
    expect(new Set(feed.events.map((e) => e.runId))).toEqual(new Set(created.runIds));
    expect(feed.events.filter((e) => e.runId === 'flow:release:judge').map((e) => e.event.name)).toContain('dependencies-ended');
    const view = await h.flows.get('release');
    expect(view).toMatchObject({ status: 'success', stepCount: 4 });
    expect(view.endedAt).not.toBeNull();
    expect((await h.flows.list({ status: 'success' })).items.map((f) => f.flowId)).toEqual(['release']);
    // Ended: no longer listed for the sweep.
    expect(await h.store.getDoc('flow-open', 'release')).toBeNull();
  });

  it.skipIf(!open)('promotes a step once however often and however concurrently the flow is moved on', async () => {
    const h = await setup();
    await h.flows.create({ id: 'f1', steps: [step('a'), step('b', ['a'])], requestedBy: 'ops' });
    await h.finish('flow:f1:a', true);
    await Promise.all([h.flows.advance('f1'), h.flows.sweep(), h.flows.advance('f1')]);
    const b = (await h.store.getRun('flow:f1:b'))!;
    expect(b.events.filter((e) => e.name === 'dependencies-ended')).toHaveLength(1);
    expect(b).toMatchObject({ status: 'pending', queueState: 'ready' });
  });

  it.skipIf(!open)('answers the same id or idempotency key again as a duplicate and admits nothing twice', async () => {
    const h = await setup();
    const first = await h.flows.create({ idempotencyKey: 'nightly-42', steps: DIAMOND, requestedBy: 'ops' });
    expect(first.kind).toBe('admitted');
    const again = await h.flows.create({ idempotencyKey: 'nightly-42', steps: DIAMOND, requestedBy: 'ops' });
    expect(again).toEqual({ ...first, kind: 'duplicate' });
    await h.flows.create({ id: 'named', steps: [step('one')], requestedBy: 'ops' });
    expect((await h.flows.create({ id: 'named', steps: [step('other')], requestedBy: 'ops' })).kind).toBe('duplicate');
    expect((await h.store.countRuns(true)).total).toBe(5);
  });

  it.skipIf(!open)('refuses a bad flow whole, naming the step and field, and writes nothing', async () => {
    const h = await setup();
    const cases: Array<[unknown[], string, RegExp]> = [
      [[step('a', ['b']), step('b', ['a'])], '/body/steps/0/dependsOn', /cycle/],
      [[step('a', ['nope'])], '/body/steps/0/dependsOn/0', /'nope', which is no step/],
      [[step('a'), step('a')], '/body/steps/1/key', /used twice/],
      [[step('a'), { key: 'b', type: 'no-such-type', payload: {} }], '/body/steps/1/type', /step 'b': unknown task type/],
      [[step('a'), { key: 'b', type: 'summarize-content', payload: { content: 7 } }], '/body/steps/1/payload/content', /step 'b'/],
      [Array.from({ length: 1001 }, (_, i) => step(`s${i}`)), '/body/steps/1000', /at most 1000 steps/],
    ];
    for (const [steps, path, message] of cases) {
      const err = await refusal(h.flows.create({ steps: steps as never, requestedBy: 'ops' }));
      expect(err.message).toMatch(message);
      expect((err.details as Array<{ path: string }>).map((d) => d.path)).toContain(path);
    }
    expect((await h.store.countRuns(true)).total).toBe(0);
    expect((await h.flows.list({})).items).toEqual([]);
  });

  it.skipIf(!open)('completes an admission a crash cut between the flow document and its steps', async () => {
    const h = await setup();
    await h.flows.create({ id: 'whole', steps: DIAMOND, requestedBy: 'ops' });
    const doc = (await h.store.getDoc('flows', 'whole'))!;
    // The listing and document of a flow whose instance died before writing any step run.
    await h.store.insertDoc('flow-open', 'cut', { since: new Date().toISOString() });
    await h.store.insertDoc('flows', 'cut', { ...doc, flowId: 'cut' });
    expect(await h.store.getRun('flow:cut:index')).toBeNull();
    await h.flows.sweep();
    expect(await h.states('cut')).toEqual({ index: 'queued', audit: 'waiting', tests: 'waiting', judge: 'waiting' });
  });
});
