import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitFor, waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('incident-triage lane through the service', () => {
  let running: RuntimeService | undefined;

  beforeAll(async () => {
    const base = tempDir();
    mkdirSync(join(base, 'workspace'), { recursive: true });
    writeFileSync(join(base, 'workspace', 'notes.txt'), 'a file, not a project folder\n');
    running = await startRuntimeService({ agentsDir: AGENTS }, base);
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('ranks a lane whose runs keep failing first', async () => {
    const { api } = running!;
    // A scope that is a file, not a project folder: release-readiness refuses, so each run fails (no retry).
    for (let i = 0; i < 4; i += 1) {
      const res = await api.trigger('release-readiness', { scope: 'notes.txt' });
      const failed = await waitForTerminal(api, res.body.runId);
      expect(failed.status).toBe('failed');
    }

    // Each failed run is also an incident of the ledger, which the lane ranks with the derived signals.
    await waitFor(async () => {
      const incidents = (await api.get('/api/incidents?classification=run-failure&limit=200')).body.incidents;
      return incidents.length === 4 ? incidents : undefined;
    });

    const res = await api.trigger('incident-triage', {});
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    expect(run.result.queue[0]).toMatchObject({
      rank: 1,
      source: 'run-history',
      classification: 'runtime-mode',
      severity: 'warning',
      title: 'release-readiness runs keep failing',
    });
    expect(run.result.queue[0].reasons[0]).toContain('4 of 4 finished release-readiness runs failed');
    expect(run.result.queue[0].reasons[1]).toContain('is not a directory');
    expect(run.result.counts.fromLedger).toBe(4);
    expect(run.result.queue.filter((e: { source: string }) => e.source === 'incident-ledger').map((e: { title: string }) => e.title)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^release-readiness run .+ failed$/)]),
    );
  });
});
