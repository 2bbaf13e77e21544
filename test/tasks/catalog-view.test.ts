import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { createCatalogView } from '../../src/runtime/catalog-view.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

describe('catalog telemetry overlay', () => {
  const stores: FileStateStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  async function overlayOf(type: string, runs: RunRecord[]) {
    const store = new FileStateStore(join(tempDir('catalog-view-'), 'state.json'));
    await store.open();
    stores.push(store);
    for (const run of runs) await store.mutateRun(run.runId, insertIfAbsent(run));
    const { tasks } = await createCatalogView(store).publicEntries();
    return tasks.find((t) => t.type === type)!.telemetryOverlay;
  }

  it('counts a rejected approval in the total, not as a failure, and a held run closed for its replay not as a success', async () => {
    const decided = (status: 'approved' | 'rejected') => ({ ...makeRun().approval, required: true, status });
    const ended = { queueState: null, finishedAt: '2026-03-01T10:00:02.000Z' } as const;
    const overlay = await overlayOf('agent-deploy', [
      makeRun({ type: 'agent-deploy', status: 'failed', ...ended, failureReason: 'approval_rejected', approval: decided('rejected') }),
      makeRun({ type: 'agent-deploy', status: 'failed', ...ended, failureReason: 'approval_rejected', approval: decided('rejected') }),
      makeRun({ type: 'agent-deploy', status: 'success', ...ended, startedAt: null, approval: decided('approved') }),
      makeRun({ type: 'agent-deploy', status: 'success', ...ended, startedAt: '2026-03-01T10:00:01.000Z' }),
      makeRun({ type: 'agent-deploy', status: 'failed', ...ended, startedAt: '2026-03-01T10:00:01.000Z', failureReason: 'worker-logical-failure' }),
    ]);
    expect(overlay).toMatchObject({
      totalRuns: 5,
      successRate: 0.5,
      failureRate: 0.5,
      approvalRejectedCount: 2,
      recentSuccessCount: 1,
      recentFailureCount: 1,
    });
  });

  it('has no rates while every ended run was settled by its approval', async () => {
    const overlay = await overlayOf('agent-deploy', [
      makeRun({ type: 'agent-deploy', status: 'failed', queueState: null, failureReason: 'approval_rejected' }),
    ]);
    expect(overlay).toMatchObject({ totalRuns: 1, successRate: null, failureRate: null, approvalRejectedCount: 1 });
  });
});
