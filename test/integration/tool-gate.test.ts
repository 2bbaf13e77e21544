import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { STAND_IN_AGENTS_DIR } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

describe('tool gate: a lane runs only when its agent is granted every skill it needs', () => {
  let service: RuntimeService['service'];
  let api: RuntimeService['api'];
  let base: string;

  beforeAll(async () => {
    // The scripted summarization stand-in with its grant taken away: summarize-content needs text-summarize.
    const agentsDir = join(tempDir(), 'agents');
    cpSync(STAND_IN_AGENTS_DIR, agentsDir, { recursive: true });
    const manifestPath = join(agentsDir, 'summarization-agent', 'agent.config.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, allowedSkills: [] }));
    ({ service, api, base } = await startRuntimeService({ agentsDir }));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('fails a refused run with its reason, spawns nothing, and shows the evidence on the run and in the skills audit', async () => {
    const log = join(base, 'executions.jsonl');
    const res = await api.trigger('summarize-content', { content: 'x', log, idempotencyKey: 'gated' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, 'gated');
    expect(run).toMatchObject({ status: 'failed', failureReason: 'tool-gate-refused', retry: null });
    expect(run.error).toContain('not granted text-summarize');
    expect(run.toolGate.preflight).toMatchObject({ decision: 'refused', agentId: 'summarization-agent', missingSkills: ['text-summarize'] });
    expect(run.toolGate.execute).toMatchObject({ ok: false, skillsExercised: [] });
    // Nothing was spawned: the fixture worker logs every start.
    expect(existsSync(log)).toBe(false);

    const audit = await api.get('/api/skills/audit?limit=10');
    expect(audit.status).toBe(200);
    const record = JSON.stringify(audit.body);
    expect(record).toContain('"runId":"gated"');
    expect(record).toContain('not granted text-summarize');
  });
});

describe('tool gate: a granted lane records preflight and execute evidence', () => {
  let service: RuntimeService['service'];
  let api: RuntimeService['api'];

  beforeAll(async () => {
    ({ service, api } = await startRuntimeService());
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('allows the run, then records what it exercised', async () => {
    await api.trigger('summarize-content', { content: 'x', idempotencyKey: 'granted' });
    const run = await waitForTerminal(api, 'granted');
    expect(run.status).toBe('success');
    expect(run.toolGate.preflight).toMatchObject({ decision: 'allowed', requiredSkills: ['text-summarize'], missingSkills: [] });
    expect(run.toolGate.execute).toMatchObject({ ok: true, skillsExercised: ['text-summarize'] });
    const telemetry = await api.get('/api/skills/telemetry');
    expect(telemetry.status).toBe(200);
    expect(JSON.stringify(telemetry.body)).toContain('text-summarize');
  });
});
