import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../../support/http.js';
import { TEST_KEYS } from '../../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('deployment-ops lane through the service', () => {
  let running: RuntimeService | undefined;

  beforeAll(async () => {
    running = await startRuntimeService({ agentsDir: AGENTS });
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('watches a held build-refactor and never deploys', async () => {
    const { api } = running!;
    const held = await api.trigger('build-refactor', {
      type: 'refactor',
      scope: 'app',
      intent: 'rename a helper',
      constraints: { maxFilesChanged: 1, runTests: false },
    });
    expect(held.status).toBe(202);
    await waitFor(async () => ((await api.get('/api/approvals/pending', TEST_KEYS.operator)).body.count === 1 ? true : undefined));

    const res = await api.trigger('deployment-ops', {});
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    expect(run.result.posture).not.toBe('ready');
    expect(run.result.actionsTaken).toEqual([]);
    const pending = run.result.watchItems.find((w: { code: string }) => w.code === 'deploy-approval-pending');
    expect(pending.evidence).toMatchObject({ taskId: held.body.taskId, type: 'build-refactor' });
    expect(run.result.runtime.stateStore).toBe('file');
  });
});
