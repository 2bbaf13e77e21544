import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { createSchedulesModule } from '../../src/schedules/module.js';
import type { ScheduleCreate } from '../../src/schedules/schedule-record.js';
import type { CancelRun } from '../../src/schedules/schedule-timer.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { createApprovalPolicy } from '../../src/runtime/approval-policy.js';
import { createApprovals } from '../../src/runtime/approvals.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import { fixedClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { fileStores } from '../support/file-stores.js';
import { operator } from '../support/identities.js';
import { testLaneRegistry } from '../support/lanes.js';
import { refusal } from '../support/domain-errors.js';

const BUILT_INS = { heartbeatCron: '*/5 * * * *', nightlyBatchCron: '0 3 * * *', businessCycleCron: '17 */6 * * *', schedulerEnabled: true };
const START = '2026-03-01T10:00:00.500Z';

const openStore = fileStores('schedules-');

/** One instance's schedules module over `store` (several may share one), with its own clock. */
function instance(store: StateStore, options: { clock?: ReturnType<typeof fixedClock>; cancelRun?: CancelRun; failingAdmissions?: number } = {}) {
  const clock = options.clock ?? fixedClock(START);
  const admitted = createAdmission({ store, clock, invalidator: { invalidate: async () => undefined }, onReady: () => undefined, telemetryRetention: 100 });
  let failing = options.failingAdmissions ?? 0;
  const admit: typeof admitted = async (request) => {
    if (failing > 0) {
      failing -= 1;
      throw new DomainError('unavailable', 'the store is away');
    }
    return admitted(request);
  };
  const module = createSchedulesModule({
    config: BUILT_INS,
    store,
    clock,
    logger: pino({ level: 'silent' }),
    admit,
    checkTrigger: createTriggerCheck(tempDir('schedules-workspace-')),
    cancelRun: options.cancelRun,
  });
  return { clock, admit: admitted, ...module };
}

const EVERY_TEN: ScheduleCreate = { id: 'ten', cron: '*/10 * * * * *', type: 'nightly-batch' };

describe('the schedules service', () => {
  it('creates a schedule with its defaults and lists it after the built-ins, with the next five times', async () => {
    const { service } = instance(await openStore());
    const created = await service.create(EVERY_TEN, 'ops-alice');
    expect(created).toMatchObject({
      id: 'ten',
      builtIn: false,
      timezone: 'UTC',
      payload: {},
      enabled: true,
      overlap: 'skip',
      catchUp: 'skip',
      createdBy: 'ops-alice',
      lastRunId: null,
      createdAt: START,
    });
    expect(created.nextRunAt).toEqual(['10:00:10', '10:00:20', '10:00:30', '10:00:40', '10:00:50'].map((t) => `2026-03-01T${t}.000Z`));

    const list = await service.list();
    expect(list.schedules.map((s) => [s.id, s.builtIn])).toEqual([
      ['heartbeat', true],
      ['nightly-batch', true],
      ['business-cycle', true],
      ['ten', false],
    ]);
    expect(list.count).toBe(4);
    expect(list.schedules[0]).toMatchObject({ type: 'heartbeat', cron: '*/5 * * * *', enabled: true });
    expect(list.schedules[0]!.nextRunAt).toHaveLength(5);
    expect((await service.get('ten')).id).toBe('ten');
    expect((await service.get('business-cycle')).type).toBe('business-value-cycle');
  });

  it('generates an id when none is given', async () => {
    const { service } = instance(await openStore());
    const created = await service.create({ cron: '0 * * * *', type: 'nightly-batch' }, 'ops');
    expect(created.id).toMatch(/^sched-[0-9a-f]{12}$/);
  });

  it('refuses a bad cron, zone, type or payload as invalid_request, each detail naming its field', async () => {
    const { service } = instance(await openStore());
    const cases: Array<[ScheduleCreate, string]> = [
      [{ cron: '* * * *', type: 'nightly-batch' }, '/body/cron'],
      [{ cron: '61 * * * *', type: 'nightly-batch' }, '/body/cron'],
      [{ cron: '* * * * *', timezone: 'Mars/Olympus', type: 'nightly-batch' }, '/body/timezone'],
      [{ cron: '* * * * *', type: 'no-such-type' }, '/body/type'],
      [{ cron: '* * * * *', type: 'heartbeat' }, '/body/type'],
      [{ cron: '* * * * *', type: 'summarize-content', payload: {} }, '/body/payload/content'],
      [{ cron: '* * * * *', type: 'summarize-content', payload: { content: 'x', maxSentences: 0 } }, '/body/payload/maxSentences'],
      [{ cron: '* * * * *', type: 'nightly-batch', payload: { idempotencyKey: 'k' } }, '/body/payload/idempotencyKey'],
      [{ cron: '* * * * *', type: 'nightly-batch', payload: { approvedBy: 'me' } }, '/body/payload/approvedBy'],
    ];
    for (const [input, path] of cases) {
      const err = await refusal(service.create(input, 'ops'));
      expect(err.code, path).toBe('invalid_request');
      expect(err.details, path).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    expect((await service.list()).count).toBe(3);
  });

  it('answers conflict to a taken id and to writes of a built-in, not_found to an unknown id', async () => {
    const { service } = instance(await openStore());
    await service.create(EVERY_TEN, 'ops');
    expect((await refusal(service.create(EVERY_TEN, 'ops'))).code).toBe('conflict');
    for (const id of ['heartbeat', 'nightly-batch', 'business-cycle']) {
      expect((await refusal(service.create({ ...EVERY_TEN, id }, 'ops'))).code).toBe('conflict');
      expect((await refusal(service.update(id, { enabled: false }, 'ops'))).code).toBe('conflict');
      expect((await refusal(service.remove(id))).code).toBe('conflict');
    }
    expect((await refusal(service.get('nope'))).code).toBe('not_found');
    expect((await refusal(service.update('nope', { enabled: false }, 'ops'))).code).toBe('not_found');
    expect((await refusal(service.remove('nope'))).code).toBe('not_found');
  });

  it('changes and deletes a schedule; a change is checked as a whole', async () => {
    const { service, clock } = instance(await openStore());
    await service.create({ ...EVERY_TEN, type: 'summarize-content', payload: { content: 'text' } }, 'ops');
    clock.set('2026-03-01T10:00:03.000Z');
    const changed = await service.update('ten', { cron: '0 12 * * *', timezone: 'Europe/Berlin' }, 'ops-bob');
    expect(changed).toMatchObject({ cron: '0 12 * * *', timezone: 'Europe/Berlin', updatedBy: 'ops-bob', createdBy: 'ops', updatedAt: '2026-03-01T10:00:03.000Z' });
    expect(changed.nextRunAt[0]).toBe('2026-03-01T11:00:00.000Z');
    // The payload stays the summarize one: a new type it does not fit is refused on the payload.
    const err = await refusal(service.update('ten', { type: 'normalize-data' }, 'ops'));
    expect(err.code).toBe('invalid_request');
    expect((await service.update('ten', { enabled: false }, 'ops')).nextRunAt).toEqual([]);
    await service.remove('ten');
    expect((await refusal(service.get('ten'))).code).toBe('not_found');
  });
});

describe('the schedule timer', () => {
  it('admits a due tick through admission with the schedule’s run id, source and creator, once', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store);
    await service.create(EVERY_TEN, 'ops-alice');
    await timer.tick();
    expect(await store.listRuns({ limit: 10 })).toMatchObject({ total: 0 });

    clock.set('2026-03-01T10:00:10.002Z');
    await timer.tick();
    await timer.tick();
    const run = await store.getRun('schedule:ten:2026-03-01T10:00:10.000Z');
    expect(run).toMatchObject({ type: 'nightly-batch', source: 'schedule', scheduleId: 'ten', requestedBy: 'ops-alice', status: 'pending' });
    expect((await store.listRuns({ limit: 10 })).total).toBe(1);
    expect(await service.get('ten')).toMatchObject({ lastRunId: run!.runId, lastFiredAt: '2026-03-01T10:00:10.000Z', lastCatchUp: false });
  });

  it('fires its runs with the schedule’s concurrency key and priority, which a change replaces', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store);
    const created = await service.create({ ...EVERY_TEN, concurrencyKey: 'nightly/eu', priority: 2 }, 'ops-alice');
    expect(created).toMatchObject({ concurrencyKey: 'nightly/eu', priority: 2 });
    clock.set('2026-03-01T10:00:10.002Z');
    await timer.tick();
    expect(await store.getRun('schedule:ten:2026-03-01T10:00:10.000Z')).toMatchObject({ concurrencyKey: 'nightly/eu', priority: 2 });
    await service.update('ten', { priority: 4, overlap: 'allow' }, 'ops-alice');
    clock.set('2026-03-01T10:00:20.002Z');
    await timer.tick();
    expect(await store.getRun('schedule:ten:2026-03-01T10:00:20.000Z')).toMatchObject({ concurrencyKey: 'nightly/eu', priority: 4 });
    expect((await service.list()).schedules.find((view) => view.builtIn)).toMatchObject({ concurrencyKey: null, priority: 3 });
  });

  it('fires its runs with the schedule’s tags, which a change replaces', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store);
    expect(await service.create({ ...EVERY_TEN, tags: ['nightly', 'team:data', 'nightly'] }, 'ops-alice')).toMatchObject({ tags: ['nightly', 'team:data'] });
    clock.set('2026-03-01T10:00:10.002Z');
    await timer.tick();
    expect((await store.getRun('schedule:ten:2026-03-01T10:00:10.000Z'))!.tags).toEqual(['nightly', 'team:data']);
    await service.update('ten', { tags: ['weekly'], overlap: 'allow' }, 'ops-alice');
    clock.set('2026-03-01T10:00:20.002Z');
    await timer.tick();
    expect((await store.getRun('schedule:ten:2026-03-01T10:00:20.000Z'))!.tags).toEqual(['weekly']);
    expect((await store.listRuns({ tags: ['nightly'] })).items.map((r) => r.runId)).toEqual(['schedule:ten:2026-03-01T10:00:10.000Z']);
    expect((await service.list()).schedules.find((view) => view.builtIn)).toMatchObject({ tags: [] });
  });

  it('tries a tick again at the next pass when its admission failed', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store, { failingAdmissions: 1 });
    await service.create(EVERY_TEN, 'ops');
    clock.set('2026-03-01T10:00:10.000Z');
    await timer.tick();
    expect(await store.getRun('schedule:ten:2026-03-01T10:00:10.000Z')).toBeNull();
    clock.set('2026-03-01T10:00:12.000Z');
    await timer.tick();
    expect(await store.getRun('schedule:ten:2026-03-01T10:00:10.000Z')).toMatchObject({ source: 'schedule' });
  });

  it('admits a tick once when two instances sharing the store fire it', async () => {
    const store = await openStore();
    const a = instance(store);
    const b = instance(store, { clock: fixedClock(START) });
    await a.service.create({ ...EVERY_TEN, overlap: 'allow' }, 'ops');
    for (const tick of ['10:00:10.001', '10:00:20.004', '10:00:30.000']) {
      a.clock.set(`2026-03-01T${tick}Z`);
      b.clock.set(`2026-03-01T${tick}Z`);
      await Promise.all([a.timer.tick(), b.timer.tick()]);
    }
    const { items } = await store.listRuns({ limit: 10, order: 'oldest' });
    expect(items.map((r) => r.runId)).toEqual(['10', '20', '30'].map((s) => `schedule:ten:2026-03-01T10:00:${s}.000Z`));
  });

  it('with overlap skip, skips while the previous run is unfinished and records why', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store);
    await service.create(EVERY_TEN, 'ops');
    clock.set('2026-03-01T10:00:10.000Z');
    await timer.tick();
    clock.set('2026-03-01T10:00:20.000Z');
    await timer.tick();
    expect((await store.listRuns({ limit: 10 })).total).toBe(1);
    const first = 'schedule:ten:2026-03-01T10:00:10.000Z';
    expect(await service.get('ten')).toMatchObject({
      lastRunId: first,
      lastSkippedAt: '2026-03-01T10:00:20.000Z',
      lastSkipReason: `overlap: the previous run ${first} is still pending`,
      // The skip names the run id that tick would have had.
      lastSkip: { at: '2026-03-01T10:00:20.000Z', runId: 'schedule:ten:2026-03-01T10:00:20.000Z', reason: `overlap: the previous run ${first} is still pending` },
    });
    // Finished: the next tick runs.
    await store.mutateRun(first, (run) => (run ? { ...run, status: 'success', queueState: null } : null));
    clock.set('2026-03-01T10:00:30.000Z');
    await timer.tick();
    expect(await store.getRun('schedule:ten:2026-03-01T10:00:30.000Z')).not.toBeNull();
  });

  it('with overlap allow admits beside the previous run; with cancel-previous asks to cancel it first', async () => {
    const store = await openStore();
    const cancels: unknown[][] = [];
    const { service, timer, clock } = instance(store, { cancelRun: async (...args) => void cancels.push(args) });
    await service.create({ ...EVERY_TEN, overlap: 'allow' }, 'ops');
    await service.create({ ...EVERY_TEN, id: 'cancelling', overlap: 'cancel-previous' }, 'ops');
    for (const t of ['10', '20']) {
      clock.set(`2026-03-01T10:00:${t}.000Z`);
      await timer.tick();
    }
    for (const id of ['ten', 'cancelling']) {
      for (const t of ['10', '20']) expect(await store.getRun(`schedule:${id}:2026-03-01T10:00:${t}.000Z`), `${id} ${t}`).not.toBeNull();
    }
    expect(cancels).toEqual([
      ['schedule:cancelling:2026-03-01T10:00:10.000Z', 'schedule:cancelling', 'schedule cancelling fired at 2026-03-01T10:00:20.000Z (overlap cancel-previous)'],
    ]);
  });

  it('after downtime runs the most recent missed tick once with catchUp once, and records a skip with catchUp skip', async () => {
    const store = await openStore();
    const before = instance(store);
    await before.service.create({ ...EVERY_TEN, id: 'once', catchUp: 'once', overlap: 'allow' }, 'ops');
    await before.service.create({ ...EVERY_TEN, id: 'skip', catchUp: 'skip', overlap: 'allow' }, 'ops');
    before.clock.set('2026-03-01T10:00:10.000Z');
    await before.timer.tick();
    await before.timer.stop();

    // A new instance (a restart) long after: ticks 10:00:20 ... 10:05:00 were missed.
    const after = instance(store, { clock: fixedClock('2026-03-01T10:05:07.000Z') });
    await after.timer.tick();
    await after.timer.tick();
    const runs = (await store.listRuns({ limit: 20, order: 'oldest' })).items.map((r) => r.runId);
    expect(runs).toEqual([
      'schedule:once:2026-03-01T10:00:10.000Z',
      'schedule:skip:2026-03-01T10:00:10.000Z',
      'schedule:once:2026-03-01T10:05:00.000Z',
    ]);
    expect(await after.service.get('once')).toMatchObject({ lastFiredAt: '2026-03-01T10:05:00.000Z', lastCatchUp: true });
    expect(await after.service.get('skip')).toMatchObject({
      lastFiredAt: '2026-03-01T10:00:10.000Z',
      lastSkippedAt: '2026-03-01T10:05:00.000Z',
      lastSkipReason: expect.stringMatching(/^missed/),
    });

    // A third start does not catch up the same tick again.
    const third = instance(store, { clock: fixedClock('2026-03-01T10:05:08.000Z') });
    await third.timer.tick();
    expect((await store.listRuns({ limit: 20 })).total).toBe(3);
  });

  it('does not catch up ticks from before a change of timing or a re-enable', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store);
    await service.create({ ...EVERY_TEN, catchUp: 'once', overlap: 'allow', enabled: false }, 'ops');
    clock.set('2026-03-01T10:03:00.000Z');
    await timer.tick();
    await service.update('ten', { enabled: true }, 'ops');
    await timer.tick();
    expect((await store.listRuns({ limit: 10 })).total).toBe(0);
    clock.set('2026-03-01T10:03:10.000Z');
    await timer.tick();
    expect((await store.listRuns({ limit: 10 })).items.map((r) => r.runId)).toEqual(['schedule:ten:2026-03-01T10:03:10.000Z']);
  });

  it('fires nothing for a deleted or disabled schedule, and nothing after stop', async () => {
    const store = await openStore();
    const { service, timer, clock } = instance(store);
    await service.create(EVERY_TEN, 'ops');
    await service.create({ ...EVERY_TEN, id: 'off' }, 'ops');
    await service.update('off', { enabled: false }, 'ops');
    await service.create({ ...EVERY_TEN, id: 'late' }, 'ops');
    await service.remove('ten');
    await timer.stop();
    clock.set('2026-03-01T10:00:10.000Z');
    await timer.tick();
    expect((await store.listRuns({ limit: 10 })).total).toBe(0);
    const other = instance(store, { clock });
    await other.timer.tick();
    expect((await store.listRuns({ limit: 10 })).items.map((r) => r.runId)).toEqual(['schedule:late:2026-03-01T10:00:10.000Z']);
  });
});

describe('who a firing is requested by', () => {
  const NO_SELF_APPROVAL = createApprovalPolicy({ default: { allowSelfApproval: false } }, TASK_CATALOG.map((e) => e.type));
  const GATED: ScheduleCreate = { id: 'gated', cron: '*/10 * * * * *', type: 'summarize-content', payload: { content: 'v1', requiresApproval: true }, overlap: 'allow' };

  it('A creates, B changes the payload: the firing is requested by both, neither may approve it, C may', async () => {
    const store = await openStore();
    const { service, timer, clock, admit } = instance(store);
    const approvals = createApprovals({ store, clock, invalidator: { invalidate: async () => undefined }, admit, lanes: testLaneRegistry(), policy: NO_SELF_APPROVAL });
    expect((await service.create(GATED, 'ops-a')).requesters).toEqual(['ops-a']);
    const changed = await service.update('gated', { payload: { content: 'v2 chosen by B', requiresApproval: true } }, 'ops-b');
    expect(changed).toMatchObject({ createdBy: 'ops-a', updatedBy: 'ops-b', requesters: ['ops-a', 'ops-b'] });

    clock.set('2026-03-01T10:00:10.001Z');
    await timer.tick();
    const held = (await store.getRun('schedule:gated:2026-03-01T10:00:10.000Z'))!;
    expect(held).toMatchObject({ queueState: 'held', requestedBy: 'ops-a', requesters: ['ops-a', 'ops-b'], payload: { content: 'v2 chosen by B' } });
    expect(held.approval).toMatchObject({ requestedBy: 'ops-a', requesters: ['ops-a', 'ops-b'] });

    for (const actor of ['ops-b', 'ops-a']) {
      const err = await refusal(approvals.decide(held.taskId, 'approved', null, operator(actor)));
      expect(err.code, actor).toBe('forbidden');
      expect(err.message).toMatch(new RegExp(`^${actor} requested this summarize-content run and .*\\(its requesters: ops-a, ops-b\\)$`));
    }
    expect((await store.getRun(held.runId))!.approval.status).toBe('pending');
    expect((await approvals.decide(held.taskId, 'approved', null, operator('ops-c'))).approval).toMatchObject({ status: 'approved', decidedBy: 'ops-c' });
  });

  it('counts a change of type or payload and switching it on, not timing, policies or a field sent unchanged; an old definition reads as creator and last changer', async () => {
    const store = await openStore();
    const { service } = instance(store);
    await service.create(GATED, 'ops-a');
    await service.update('gated', { cron: '*/20 * * * * *', timezone: 'Europe/Berlin', overlap: 'skip', catchUp: 'once' }, 'ops-timing');
    await service.update('gated', { type: 'summarize-content', payload: { requiresApproval: true, content: 'v1' } }, 'ops-same');
    await service.update('gated', { enabled: false }, 'ops-off');
    expect((await service.get('gated')).requesters).toEqual(['ops-a']);
    await service.update('gated', { enabled: true }, 'ops-on');
    await service.update('gated', { type: 'doc-sync', payload: {} }, 'ops-type');
    expect((await service.get('gated')).requesters).toEqual(['ops-a', 'ops-on', 'ops-type']);

    const { requesters: _dropped, ...old } = (await store.getDoc('schedules', 'gated'))!;
    await store.putDoc('schedules', 'gated', { ...old, createdBy: 'ops-a', updatedBy: 'ops-z' });
    expect((await service.get('gated')).requesters).toEqual(['ops-a', 'ops-z']);
  });
});

describe('a firing whose run id is taken', () => {
  it('is not admitted and says why on the schedule (lastSkip), and the next tick fires', async () => {
    const store = await openStore();
    const { service, timer, clock, admit } = instance(store);
    await service.create(EVERY_TEN, 'ops');
    const taken = 'schedule:ten:2026-03-01T10:00:10.000Z';
    // A client took the id before ids of this shape were refused (the trigger check refuses it now).
    await admit({ type: 'summarize-content', payload: { content: 'mine', idempotencyKey: taken }, source: 'api', requestedBy: 'mallory' });

    clock.set('2026-03-01T10:00:10.001Z');
    await timer.tick();
    const reason = `run id taken: ${taken} is a summarize-content run admitted from api by mallory, not a firing of this schedule`;
    expect(await service.get('ten')).toMatchObject({
      lastRunId: null,
      lastFiredAt: null,
      lastSkippedAt: '2026-03-01T10:00:10.000Z',
      lastSkipReason: reason,
      lastSkip: { at: '2026-03-01T10:00:10.000Z', runId: taken, reason },
    });
    expect(await store.getRun(taken)).toMatchObject({ type: 'summarize-content', source: 'api', requestedBy: 'mallory' });

    clock.set('2026-03-01T10:00:20.001Z');
    await timer.tick();
    expect(await service.get('ten')).toMatchObject({ lastRunId: 'schedule:ten:2026-03-01T10:00:20.000Z', lastSkip: { runId: taken } });
  });
});
