import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../../support/http.js';
import { TEST_KEYS } from '../../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('control-plane-brief lane through the service', () => {
  let running: RuntimeService | undefined;

  beforeAll(async () => {
    running = await startRuntimeService({ agentsDir: AGENTS });
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('briefs the held approval and the startup milestone of the running service', async () => {
    const { api } = running!;
    const held = await api.trigger('summarize-content', { content: 'held for a decision', requiresApproval: true });
    expect(held.status).toBe(202);
    await waitFor(async () => {
      const pending = await api.get('/api/approvals/pending', TEST_KEYS.operator);
      return pending.body.count === 1 ? true : undefined;
    });

    const res = await api.trigger('control-plane-brief', {});
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    const { brief, posture, briefBytes } = run.result;
    expect(['steady', 'attention', 'critical']).toContain(posture);
    expect(briefBytes).toBeLessThanOrEqual(8192);
    expect(brief.sections.approvals.facts[0]).toBe('1 approval pending');
    expect(brief.sections.approvals.items[0]).toMatchObject({ taskId: held.body.taskId, type: 'summarize-content' });
    expect(brief.sections.proof.facts[0]).toContain('latest milestone startup completed');
    expect(brief.sections.services.facts[0]).toContain('state store file');
  });
});
