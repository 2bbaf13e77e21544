import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { AGENTS_DIR } from '../support/paths.js';

/** Short enough to be summarized as written, so the address stays in the recalled summary. */
const CONTENT = 'Reach the on-call lead at oncall@example.com before a release.';

describe('agent platform: a real spawned agent leaves its evidence in the overview, the skills audit and memory recall', () => {
  let service: RuntimeService['service'];
  let api: RuntimeService['api'];

  beforeAll(async () => {
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }));
    await api.trigger('summarize-content', { content: CONTENT, idempotencyKey: 'platform-run' });
    expect((await waitForTerminal(api, 'platform-run')).status).toBe('success');
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('overview: the agent is operational on the evidence of its run', async () => {
    const res = await api.get('/api/agents/overview');
    expect(res.status).toBe(200);
    expect(res.body.agents).toHaveLength(19);
    const agent = res.body.agents.find((a: { id: string }) => a.id === 'summarization-agent');
    expect(agent).toMatchObject({ spawnedWorkerCapable: true, serviceExpected: false, lifecycleMode: 'worker-first' });
    expect(agent.memory.totalRuns).toBeGreaterThanOrEqual(1);
    expect(agent.capability.currentReadiness).toMatch(/^(operational|advanced)$/);
    expect(agent.capability.runtimeEvidence.latestSuccessfulRunId).toBe('platform-run');
    expect(agent.capability.runtimeEvidence.highlightKeys).toContain('summary');
    const docSpecialist = res.body.agents.find((a: { id: string }) => a.id === 'doc-specialist');
    expect(docSpecialist).toMatchObject({ serviceExpected: true, lifecycleMode: 'service-expected' });
    expect(res.body.topology.counts.totalEdges).toBeGreaterThan(0);
  });

  it('skills audit: the run carries its allowed preflight and its execute record', async () => {
    const res = await api.get('/api/skills/audit?limit=20');
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    expect(text).toContain('"runId":"platform-run"');
    expect(text).toContain('text-summarize');
  });

  it('memory recall: the run is recalled, redacted for a viewer; unredacted only for an admin', async () => {
    const viewer = await api.get('/api/memory/recall?agentId=summarization-agent');
    expect(viewer.status).toBe(200);
    const recalled = JSON.stringify(viewer.body);
    expect(recalled).toContain('platform-run');
    expect(recalled).not.toContain('oncall@example.com');
    expect((await api.get('/api/memory/recall?agentId=summarization-agent&includeSensitive=true')).status).toBe(403);
    const admin = await api.get('/api/memory/recall?agentId=summarization-agent&includeSensitive=true', TEST_KEYS.admin);
    expect(admin.status).toBe(200);
    // The summary keeps the address; only the admin's unredacted recall shows it.
    expect(JSON.stringify(admin.body)).toContain('oncall@example.com');
    expect(recalled).toContain('[redacted:email]');
    expect((await api.get('/api/memory/recall?agentId=no-such-agent')).status).toBe(404);
  });
});
