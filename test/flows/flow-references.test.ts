import { describe, expect, it } from 'vitest';
import { refusal } from '../support/domain-errors.js';
import { fileFlowHarnesses, summarizeStep as step } from '../support/flow-harness.js';

const from = (key: string, pointer: string) => ({ $from: key, pointer });
/** `b` summarizes what `a` answered: its content is a reference. */
const reading = (pointer: string, extra: Record<string, unknown> = {}) => [step('a'), step('b', ['a'], { payload: { content: from('a', pointer), ...extra } })];

describe('values between steps: $from references resolved at promotion', () => {
  const setup = fileFlowHarnesses('orch-flow-ref-');

  it('replaces a reference by the dependency\'s value when the step becomes pending (a handler\'s {status, result} unwrapped)', async () => {
    const h = await setup();
    await h.flows.create({ id: 'r1', requestedBy: 'ops', steps: reading('/result/summary') });
    expect((await h.store.getRun('flow:r1:b'))!.payload.content).toEqual(from('a', '/result/summary'));
    await h.finish('flow:r1:a', true, { status: 'completed', result: { summary: 'the index is fresh' } });
    const b = (await h.store.getRun('flow:r1:b'))!;
    expect(b).toMatchObject({ status: 'pending', queueState: 'ready', payload: { content: 'the index is fresh' } });
  });

  it('fails the step, naming the reference, when the value is missing; its dependents follow their policy', async () => {
    const h = await setup();
    await h.flows.create({ id: 'r2', requestedBy: 'ops', steps: [...reading('/result/nothing'), step('c', ['b'])] });
    await h.finish('flow:r2:a', true, { summary: 'x' });
    const b = (await h.store.getRun('flow:r2:b'))!;
    expect(b).toMatchObject({ status: 'failed', failureReason: 'flow_reference' });
    expect(b.error).toBe('payload/content: the reference {"$from": "a", "pointer": "/result/nothing"} has no value');
    expect(await h.states('r2')).toEqual({ a: 'success', b: 'failed', c: 'skipped' });
    expect((await h.flows.get('r2')).status).toBe('failed');
  });

  it('checks the resolved payload against the type\'s schema then', async () => {
    const h = await setup();
    await h.flows.create({ id: 'r3', requestedBy: 'ops', steps: reading('/result/count') });
    await h.finish('flow:r3:a', true, { count: 7 });
    const b = (await h.store.getRun('flow:r3:b'))!;
    expect(b.status).toBe('failed');
    expect(b.error).toContain('/body/payload/content');
  });

  it('reads an approved dependency\'s value from its approval replay', async () => {
    const h = await setup();
    await h.flows.create({
      id: 'r4',
      requestedBy: 'ops',
      steps: [step('a', [], { payload: { content: 'x', requiresApproval: true } }), step('b', ['a'], { payload: { content: from('a', '/result/summary') } })],
    });
    const { replayRunId } = (await h.decide('flow:r4:a', 'approved')) as { replayRunId: string };
    expect((await h.store.getRun('flow:r4:b'))!.queueState).toBe('waiting');
    await h.finish(replayRunId, true, { summary: 'approved work' });
    expect((await h.store.getRun('flow:r4:b'))!.payload.content).toBe('approved work');
  });

  it('refuses at admission a reference to a step that is not a dependency, or one of another shape', async () => {
    const h = await setup();
    const notDep = await refusal(h.flows.create({ requestedBy: 'ops', steps: [step('a'), step('b', [], { payload: { content: from('a', '/result/x') } })] }));
    expect(notDep.details).toEqual([expect.objectContaining({ path: '/body/steps/1/payload/content/$from' })]);
    expect(notDep.message).toMatch(/not one of its dependencies/);
    const shape = await refusal(h.flows.create({ requestedBy: 'ops', steps: [step('a'), step('b', ['a'], { payload: { content: { $from: 'a' } } })] }));
    expect(shape.details).toEqual([expect.objectContaining({ path: '/body/steps/1/payload/content' })]);
    // A schema problem elsewhere in the payload is still refused at admission.
    const other = await refusal(h.flows.create({ requestedBy: 'ops', steps: reading('/result/x', { format: 7 }) }));
    expect((other.details as Array<{ path: string }>).map((d) => d.path)).toEqual(['/body/steps/1/payload/format']);
    expect((await h.store.countRuns(true)).total).toBe(0);
  });
});

describe('a step run removed by retention before its flow ended', () => {
  const setup = fileFlowHarnesses('orch-flow-pruned-');

  it('counts as pruned (ended, not a success) and is never admitted again', async () => {
    const h = await setup();
    await h.flows.create({ id: 'p', requestedBy: 'ops', steps: [step('a'), step('b', ['a'])] });
    await h.finish('flow:p:a', true);
    expect(await h.store.pruneRuns(0)).toBe(1);
    await h.flows.advance('p');
    await h.flows.sweep();
    expect(await h.store.getRun('flow:p:a')).toBeNull();
    expect(await h.states('p')).toEqual({ a: 'pruned', b: 'queued' });
    await h.finish('flow:p:b', true);
    expect((await h.flows.get('p')).status).toBe('failed');
  });
});
