import { totalmem } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('system-monitor lane through the service', () => {
  let running: RuntimeService | undefined;

  beforeAll(async () => {
    running = await startRuntimeService({ agentsDir: AGENTS });
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('answers a posture with the host figures of this machine and the service state folder disk', async () => {
    const { api } = running!;
    const res = await api.trigger('system-monitor', { type: 'health' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    const result = run.result;
    expect(['healthy', 'degraded', 'critical']).toContain(result.posture);
    expect(result.host.memory.totalBytes).toBe(totalmem());
    expect(result.host.disk.error).toBeNull();
    expect(result.host.disk.totalBytes).toBeGreaterThan(0);
    expect(result.checks.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['memory', 'load', 'disk', 'queue', 'failure-rate']));
    // The startup run is in the snapshot's window the service built for this run.
    expect(result.failureRates.map((f: { type: string }) => f.type)).toContain('startup');
    expect(result.specialistContract).toMatchObject({ role: 'system-monitor-agent', status: 'completed' });
  });
});
