import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../support/identities.js';
import { fileFlowHarnesses, summarizeStep as step } from '../support/flow-harness.js';

describe('a flow step\'s queue placement', () => {
  const setup = fileFlowHarnesses('orch-flow-placement-');

  it('is stored on the step run from admission through promotion, and a rerun queues its steps the same way', async () => {
    const h = await setup();
    await h.flows.create({ id: 'placed', steps: [step('a'), step('b', ['a'], { concurrencyKey: 'env-prod', priority: 1 })], requestedBy: 'ops' });
    expect(await h.store.getRun('flow:placed:b')).toMatchObject({ queueState: 'waiting', concurrencyKey: 'env-prod', priority: 1 });
    expect(await h.store.getRun('flow:placed:a')).toMatchObject({ concurrencyKey: null, priority: 3 });

    await h.finish('flow:placed:a', true);
    expect(await h.store.getRun('flow:placed:b')).toMatchObject({ queueState: 'ready', concurrencyKey: 'env-prod', priority: 1 });
    await h.finish('flow:placed:b', false);

    const rerun = await h.flows.rerun('placed', 'b', OPERATOR);
    expect(await h.store.getRun(rerun.runIds[1]!)).toMatchObject({ queueState: 'ready', concurrencyKey: 'env-prod', priority: 1 });
  });

  it('carries each step\'s tags onto its run, and a rerun\'s steps keep them', async () => {
    const h = await setup();
    await h.flows.create({ id: 'tagged', steps: [step('a', [], { tags: ['release:42'] }), step('b', ['a'])], requestedBy: 'ops' });
    expect((await h.store.getRun('flow:tagged:a'))!.tags).toEqual(['release:42']);
    expect((await h.store.getRun('flow:tagged:b'))!.tags).toBeUndefined();
    await h.finish('flow:tagged:a', false);
    const rerun = await h.flows.rerun('tagged', 'a', OPERATOR);
    expect((await h.store.getRun(rerun.runIds[0]!))!.tags).toEqual(['release:42']);
  });
});
