import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FLOW_NAME } from '../../src/flows/flow-definition.js';
import { createSchedulesModule } from '../../src/schedules/module.js';
import type { ScheduleCreate } from '../../src/schedules/schedule-record.js';
import { scheduledFlowId } from '../../src/schedules/scheduled-flow-id.js';
import type { StateStore } from '../../src/store/types.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import { fixedClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { refusal } from '../support/domain-errors.js';
import { fileStores } from '../support/file-stores.js';
import { flowHarness, summarizeStep as step } from '../support/flow-harness.js';

const START = '2026-03-01T10:00:00.500Z';
const BUILT_INS = { heartbeatCron: '*/5 * * * *', nightlyBatchCron: '0 3 * * *', businessCycleCron: '17 */6 * * *', schedulerEnabled: true };

const openStore = fileStores('schedule-flows-');

/** One instance: the flows (with a test playing the runner) and the schedules module over `store`, on its own clock. */
function instance(store: StateStore) {
  const clock = fixedClock(START);
  const h = flowHarness(store);
  const module = createSchedulesModule({
    config: BUILT_INS,
    store,
    clock,
    logger: pino({ level: 'silent' }),
    admit: h.admit,
    checkTrigger: createTriggerCheck(tempDir('schedule-flows-ws-')),
    flows: h.flows,
  });
  /** Moves the clock to `iso` and runs one timer pass. */
  const tickAt = async (iso: string) => {
    clock.set(iso);
    await module.timer.tick();
  };
  /** Creates NIGHTLY_FLOW as `actor` and fires its first tick (10:00:10): that firing's flow id. */
  const firstFiring = async (actor: string) => {
    await module.service.create(NIGHTLY_FLOW, actor);
    await tickAt('2026-03-01T10:00:10.002Z');
    return scheduledFlowId('nightly-release', new Date('2026-03-01T10:00:10.000Z'));
  };
  return { clock, h, tickAt, firstFiring, ...module };
}

const NIGHTLY_FLOW: ScheduleCreate = { id: 'nightly-release', cron: '*/10 * * * * *', flow: { steps: [step('index'), step('judge', ['index'], { priority: 4 })] } };

/** The fields a refused write names (it must be refused as invalid_request). */
async function refusedPaths(attempt: Promise<unknown>): Promise<string[]> {
  const err = await refusal(attempt);
  expect(err.code).toBe('invalid_request');
  return (err.details as Array<{ path: string }>).map((d) => d.path);
}

describe('a schedule that fires a flow', () => {
  it('is created with its flow and shown with type null; GET lists it beside task schedules', async () => {
    const { service } = instance(await openStore());
    const created = await service.create(NIGHTLY_FLOW, 'ops-alice');
    expect(created).toMatchObject({ id: 'nightly-release', type: null, payload: {}, flow: NIGHTLY_FLOW.flow, concurrencyKey: null, priority: 3 });
    const listed = (await service.list()).schedules;
    expect(listed.find((s) => s.id === 'nightly-release')).toMatchObject({ type: null, flow: NIGHTLY_FLOW.flow });
    expect(listed.find((s) => s.id === 'heartbeat')).toMatchObject({ type: 'heartbeat', flow: null });
  });

  it('refuses neither or both of type and flow, a bad flow (its own validation, re-pointed) and placement beside a flow; stores nothing', async () => {
    const { service } = instance(await openStore());
    const base = { id: 'bad', cron: '*/10 * * * * *' };
    expect(await refusedPaths(service.create(base, 'ops'))).toEqual(['/body/type']);
    expect(await refusedPaths(service.create({ ...base, type: 'summarize-content', payload: { content: 'x' }, flow: NIGHTLY_FLOW.flow }, 'ops'))).toEqual(['/body/flow', '/body/payload']);
    expect(await refusedPaths(service.create({ ...base, flow: { steps: [step('a', ['b']), step('b', ['a'])] } }, 'ops'))).toEqual(['/body/flow/steps/0/dependsOn']);
    expect(await refusedPaths(service.create({ ...base, flow: { steps: [step('a', ['nope'])] } }, 'ops'))).toEqual(['/body/flow/steps/0/dependsOn/0']);
    expect(await refusedPaths(service.create({ ...base, flow: { steps: [{ key: 'a', type: 'summarize-content', payload: {} }] } }, 'ops'))).toEqual([
      expect.stringMatching(/^\/body\/flow\/steps\/0\/payload/),
    ]);
    expect(await refusedPaths(service.create({ ...base, flow: NIGHTLY_FLOW.flow, concurrencyKey: 'k' }, 'ops'))).toEqual(['/body/concurrencyKey']);
    await expect(service.get('bad')).rejects.toMatchObject({ code: 'not_found' });

    // A change is checked as a whole: a task schedule becomes a flow schedule, and a bad flow is refused.
    await service.create({ id: 'task', cron: '*/10 * * * * *', type: 'summarize-content', payload: { content: 'x' }, concurrencyKey: 'k' }, 'ops');
    expect(await refusedPaths(service.update('task', { flow: { steps: [step('a', ['a'])] } }, 'ops'))).toEqual(['/body/flow/steps/0/dependsOn/0']);
    expect(await refusedPaths(service.update('task', { type: 'summarize-content', flow: NIGHTLY_FLOW.flow }, 'ops'))).toContain('/body/flow');
    const changed = await service.update('task', { flow: NIGHTLY_FLOW.flow }, 'ops-bob');
    expect(changed).toMatchObject({ type: null, payload: {}, flow: NIGHTLY_FLOW.flow, concurrencyKey: null, requesters: ['ops', 'ops-bob'] });
    expect(await service.update('task', { type: 'summarize-content', payload: { content: 'y' } }, 'ops')).toMatchObject({ type: 'summarize-content', flow: null });
  });

  it('admits a flow per firing, named by the schedule and the fire time, whose steps run in order', async () => {
    const store = await openStore();
    const { service, firstFiring, h } = instance(store);
    const flowId = await firstFiring('ops-alice');
    expect(flowId).toBe('nightly-release.20260301T100010.000Z');
    expect(await service.get('nightly-release')).toMatchObject({ lastRunId: flowId, lastFiredAt: '2026-03-01T10:00:10.000Z' });
    expect(await h.states(flowId)).toEqual({ index: 'queued', judge: 'waiting' });
    const judge = await store.getRun(`flow:${flowId}:judge`);
    expect(judge).toMatchObject({ source: 'flow', requestedBy: 'ops-alice', requesters: ['ops-alice'], priority: 4 });

    await h.finish(`flow:${flowId}:index`, true);
    await h.finish(`flow:${flowId}:judge`, true);
    expect(await h.flows.get(flowId)).toMatchObject({ status: 'success' });
  });

  it('skips a firing while the previous flow runs (overlap skip), and fires again once it ended', async () => {
    const { service, tickAt, firstFiring, h } = instance(await openStore());
    const first = await firstFiring('ops');
    await tickAt('2026-03-01T10:00:20.002Z');
    expect(await service.get('nightly-release')).toMatchObject({ lastRunId: first, lastSkipReason: expect.stringContaining(`previous flow ${first}`) });
    await h.finish(`flow:${first}:index`, false);
    await tickAt('2026-03-01T10:00:30.002Z');
    expect(await service.get('nightly-release')).toMatchObject({ lastRunId: scheduledFlowId('nightly-release', new Date('2026-03-01T10:00:30.000Z')) });
  });

  it('with overlap cancel-previous cancels the previous flow as the schedule, then admits the next', async () => {
    const { service, tickAt, h } = instance(await openStore());
    await service.create({ ...NIGHTLY_FLOW, overlap: 'cancel-previous' }, 'ops');
    await tickAt('2026-03-01T10:00:10.002Z');
    await tickAt('2026-03-01T10:00:20.002Z');
    const [first, second] = ['10', '20'].map((s) => scheduledFlowId('nightly-release', new Date(`2026-03-01T10:00:${s}.000Z`)));
    expect(await h.flows.get(first!)).toMatchObject({ status: 'cancelled', cancelRequested: true });
    expect(await h.store.getDoc('flow-cancels', first!)).toMatchObject({ requestedBy: 'schedule:nightly-release' });
    expect(await h.states(second!)).toEqual({ index: 'queued', judge: 'waiting' });
    expect(await service.get('nightly-release')).toMatchObject({ lastRunId: second });
  });

  it('names a long schedule\'s flows within the flow id rule, still one name per schedule and tick', () => {
    const at = new Date('2026-03-01T10:00:10.000Z');
    const [x, y] = ['x', 'y'].map((last) => scheduledFlowId(`${'a'.repeat(99)}${last}`, at));
    for (const id of [x!, y!]) expect(id).toMatch(FLOW_NAME);
    expect(x).not.toBe(y);
  });

  it('makes one flow when two instances on one store fire the same tick', async () => {
    const store = await openStore();
    const a = instance(store);
    const b = instance(store);
    await a.service.create({ ...NIGHTLY_FLOW, overlap: 'allow' }, 'ops');
    for (const at of ['10:00:10.001', '10:00:20.004']) {
      a.clock.set(`2026-03-01T${at}Z`);
      b.clock.set(`2026-03-01T${at}Z`);
      await Promise.all([a.timer.tick(), b.timer.tick()]);
    }
    const flows = await a.h.flows.list({});
    expect(flows.items.map((f) => f.flowId).sort()).toEqual(['10', '20'].map((s) => `nightly-release.20260301T1000${s}.000Z`));
    // Two steps a flow, each admitted once.
    expect((await store.listRuns({ limit: 50 })).total).toBe(4);
  });

  it('does not take over a flow a client made under the firing\'s id: the tick is skipped with why', async () => {
    const store = await openStore();
    const { service, tickAt, h } = instance(store);
    const flowId = scheduledFlowId('nightly-release', new Date('2026-03-01T10:00:10.000Z'));
    await h.flows.create({ id: flowId, steps: [step('other')], requestedBy: 'someone' });
    await service.create(NIGHTLY_FLOW, 'ops');
    await tickAt('2026-03-01T10:00:10.002Z');
    expect(await service.get('nightly-release')).toMatchObject({ lastRunId: null, lastSkip: { runId: flowId, reason: expect.stringContaining('flow id taken') } });
  });
});
