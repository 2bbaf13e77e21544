import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');
const TEXT =
  'The orchestrator admits every task through one idempotency check. It keeps a durable record of each run. ' +
  'Operators approve risky work before it runs. Workers run in their own processes with a minimal environment.';

describe('integration-workflow lane through the service', () => {
  let service: RuntimeService['service'];
  let api: RuntimeService['api'];

  beforeAll(async () => {
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR, concurrency: 2 }));
  });
  afterAll(async () => {
    await service?.kill();
  });

  /** The workflow run once its children reached the given states. */
  async function workflowWhen(runId: string, settled: (states: string[]) => boolean) {
    return waitFor(async () => {
      const res = await api.run(runId);
      const links = (res.body.workflowGraph?.causalLinks ?? []) as Array<{ state: string }>;
      return links.length > 0 && settled(links.map((l) => l.state)) ? res.body : undefined;
    }, 30_000);
  }

  it('runs each step as a child run after the previous one, with causal links both ways', async () => {
    const steps = [
      { type: 'summarize-content', payload: { content: TEXT, format: 'bullets' }, description: 'summarize the notes' },
      { type: 'summarize-content', payload: { content: TEXT }, description: 'summarize again' },
    ];
    const res = await api.trigger('integration-workflow', { steps, idempotencyKey: 'wf-ok' });
    expect(res.status).toBe(202);
    const planned = await waitForTerminal(api, 'wf-ok');
    expect(planned.status).toBe('success');
    expect(planned.result.steps.map((s: { runId: string }) => s.runId)).toEqual(['wf-ok:step-1', 'wf-ok:step-2']);

    const done = await workflowWhen('wf-ok', (states) => states.every((s) => s === 'success'));
    expect(done.workflowGraph.dependencySummary).toMatchObject({ steps: 2, succeeded: 2, failed: 0 });
    const first = await waitForTerminal(api, 'wf-ok:step-1');
    const second = await waitForTerminal(api, 'wf-ok:step-2');
    expect(first.status).toBe('success');
    expect(first.result.bullets.length).toBeGreaterThan(0);
    // Sequential: the second step was admitted only after the first had finished.
    expect(new Date(second.createdAt).getTime()).toBeGreaterThanOrEqual(new Date(first.finishedAt).getTime());
    expect(second.workflowGraph.crossRunLinks).toEqual([{ from: 'wf-ok:step-2', to: 'wf-ok', relation: 'step-of', stepIndex: 1 }]);

    // A replay of the same workflow key is a duplicate and admits no second set of children.
    const again = await api.trigger('integration-workflow', { steps, idempotencyKey: 'wf-ok' });
    expect(again.status).toBe(200);
    const runs = await api.get('/api/tasks/runs?type=summarize-content&limit=200');
    expect(runs.body.items.filter((r: { runId: string }) => r.runId.startsWith('wf-ok:'))).toHaveLength(2);
  });

  it('reroutes a failed step and skips the steps after it', async () => {
    const steps = [
      { type: 'summarize-content', payload: { content: TEXT }, reroute: 'system-monitor' },
      { type: 'summarize-content', payload: { content: '   ' }, reroute: 'system-monitor' },
      'summarize-content: never reached',
    ];
    await api.trigger('integration-workflow', { steps, idempotencyKey: 'wf-fail' });
    const done = await workflowWhen('wf-fail', (states) => states.length === 4 && !states.includes('queued') && !states.includes('running'));
    const links = done.workflowGraph.causalLinks as Array<{ to: string; relation: string; state: string }>;
    expect(links.map((l) => `${l.relation}:${l.state}`)).toEqual([
      'runs-step:success',
      'runs-step:failed',
      'runs-step:skipped',
      'reroutes-failed-step:success',
    ]);
    expect(links[3]!.to).toBe('wf-fail:step-2:reroute');
    const reroute = await waitForTerminal(api, 'wf-fail:step-2:reroute');
    expect(reroute.type).toBe('system-monitor');
    expect(done.workflowGraph.dependencySummary).toMatchObject({ steps: 3, succeeded: 1, failed: 1, skipped: 1, rerouted: true });
  });
});
