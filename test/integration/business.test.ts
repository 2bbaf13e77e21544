import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_BUSINESS_REGISTRY } from '../../src/demo/sample-business-registry.js';
import { SAMPLE_PROJECT_DIR } from '../../src/demo/sample-project.js';
import { seedDemoWorkspace } from '../../src/demo/seed-workspace.js';
import { tempDir } from '../support/config.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import type { ServiceProcess } from '../support/service-process.js';
import { AGENTS_DIR } from '../support/paths.js';

describe('business-value planner and autonomous cycles through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  const base = tempDir('business-it-');

  beforeAll(async () => {
    const workspaceRoot = join(base, 'workspace');
    seedDemoWorkspace({ workspaceRoot, docsPath: join(workspaceRoot, 'docs') });
    mkdirSync(join(workspaceRoot, 'business'), { recursive: true });
    writeFileSync(join(workspaceRoot, 'business', 'registry.json'), JSON.stringify(SAMPLE_BUSINESS_REGISTRY));
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('ranks candidates, runs one cycle that enqueues one safe task, and refuses a second click with its decision', async () => {
    const overview = await api.get('/api/business/overview');
    expect(overview.status).toBe(200);
    expect(overview.body.registry).toMatchObject({ status: 'ok', schemaVersion: '2.0.1', path: 'workspace/business/registry.json' });
    expect(overview.body.candidates[0]).toMatchObject({ candidateId: 'initiative:reorder-accuracy', score: 70, disposition: 'eligible' });
    expect(overview.body.scheduler).toMatchObject({ mode: 'enabled', cron: '17 */6 * * *', cycleState: 'idle' });

    expect((await api.post('/api/business/cycle/trigger', {}, TEST_KEYS.viewer)).status).toBe(403);
    const queued = await api.post('/api/business/cycle/trigger', { reason: 'integration test' });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'queued', cycleId: expect.any(String), taskId: expect.any(String), runId: queued.body.taskId });
    // Both ids the trigger answers name the cycle's run.
    for (const id of [queued.body.taskId, queued.body.runId]) {
      const run = await api.get(`/api/tasks/runs/${encodeURIComponent(id)}`);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ runId: queued.body.runId, taskId: queued.body.taskId, type: 'business-value-cycle', payload: { cycleId: queued.body.cycleId } });
    }

    const again = await api.post('/api/business/cycle/trigger', {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect(['active', 'cooldown']).toContain(again.body.error.details.decision);

    const cycle = await waitFor(async () => {
      const res = await api.get(`/api/business/cycles/${queued.body.cycleId}`);
      return res.body.state === 'completed' ? res.body : undefined;
    });
    expect(cycle.selected).toMatchObject({ candidateId: 'initiative:reorder-accuracy', taskType: 'content-generate' });
    expect(cycle.approvalGated.map((c: { kind: string }) => c.kind).sort()).toEqual(['commercial-commitment', 'outreach', 'private-source-access']);
    expect(cycle).toMatchObject({ runId: queued.body.runId, taskId: queued.body.taskId });
    expect(await waitForTerminal(api, queued.body.runId)).toMatchObject({ type: 'business-value-cycle', status: 'success' });
    const task = await waitForTerminal(api, cycle.selected.runId);
    expect(task).toMatchObject({ type: 'content-generate', status: 'success' });

    const runs = await api.get('/api/tasks/runs?limit=200');
    const admittedTypes = runs.body.items.map((r: { type: string }) => r.type).sort();
    expect(admittedTypes).toEqual(['business-value-cycle', 'content-generate']);

    const list = await api.get('/api/business/cycles');
    expect(list.body).toMatchObject({ total: 1, cycles: [{ cycleId: queued.body.cycleId, state: 'completed' }] });
    const candidates = await api.get('/api/business/candidates');
    // The first task is no longer in flight; the planner would pick the best eligible candidate again.
    expect(candidates.body.wouldSelect).toBe('initiative:reorder-accuracy');
    const ops = await api.get('/api/business/operations');
    expect(ops.body).toMatchObject({ automaticMode: 'enabled', cadence: '17 */6 * * *', selectedModel: { value: null } });
  });

  it('retries failed cycles only', async () => {
    const list = await api.get('/api/business/cycles');
    const completed = list.body.cycles[0].cycleId;
    const retry = await api.post(`/api/business/cycles/${completed}/retry`, {});
    expect(retry.status).toBe(409);
    expect(retry.body.error.details).toEqual({ decision: 'not-failed' });
    expect((await api.post('/api/business/cycles/no-such-cycle/retry', {})).status).toBe(404);
  });

  it('stops an autonomous work cycle at the mutation boundary and passes it once approved', async () => {
    const res = await api.trigger('autonomous-work-cycle', { idempotencyKey: 'awc-1', requestedOutcome: 'Fix the reorder check', projectRoot: SAMPLE_PROJECT_DIR });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, 'awc-1');
    expect(run.status).toBe('success');
    expect(run.result.result.stoppedAt).toMatchObject({ boundary: 'mutation', step: 3 });
    // The coding inspection is tool-gated like a worker lane, and its evidence is on the run.
    expect(run.toolGate).toMatchObject({
      preflight: { decision: 'allowed', agentId: 'autonomous-work-cycle', requiredSkills: ['workspace-read', 'coding-audit'] },
      execute: { ok: true, skillsExercised: ['workspace-read', 'coding-audit'] },
    });
    const pending = await waitFor(async () => {
      const list = await api.get('/api/approvals/pending', TEST_KEYS.operator);
      return list.body.pending.find((p: { runId: string }) => p.runId === run.result.result.stoppedAt.approvalRunId);
    });
    const decided = await api.post(`/api/approvals/${pending.taskId}/decision`, { decision: 'approved' });
    expect(decided.status).toBe(200);
    const replay = await waitForTerminal(api, decided.body.replayRunId);
    expect(replay.status).toBe('success');
    expect(replay.result.result).toMatchObject({ completed: true, stoppedAt: null });
    expect(replay.result.result.steps[3]).toMatchObject({ name: 'mutation', status: 'approved' });
  });

  it('continues a work chain only for the actor who started it or an admin, and takes only a name as its id', async () => {
    const base = { requestedOutcome: 'Inspect the reorder check', projectRoot: SAMPLE_PROJECT_DIR };
    expect((await api.trigger('autonomous-work-cycle', { ...base, idempotencyKey: 'chain-of-admin' }, TEST_KEYS.admin)).status).toBe(202);
    expect((await waitForTerminal(api, 'chain-of-admin')).status).toBe('success');
    expect((await api.trigger('autonomous-work-cycle', { ...base, idempotencyKey: 'chain-of-ops' })).status).toBe(202);
    expect((await waitForTerminal(api, 'chain-of-ops')).status).toBe('success');

    const taken = await api.trigger('autonomous-work-cycle', { ...base, workChainId: 'chain-of-admin' });
    expect(taken.status).toBe(403);
    expect(taken.body.error).toMatchObject({ code: 'forbidden', details: [{ path: '/body/payload/workChainId' }] });
    const dotted = await api.trigger('autonomous-work-cycle', { ...base, workChainId: '..' });
    expect(dotted.status).toBe(400);
    expect(dotted.body.error).toMatchObject({ code: 'invalid_request', details: [{ path: '/body/payload/workChainId' }] });

    const byAdmin = await api.trigger('autonomous-work-cycle', { ...base, idempotencyKey: 'chain-of-ops-2', workChainId: 'chain-of-ops' }, TEST_KEYS.admin);
    expect(byAdmin.status).toBe(202);
    expect(await waitForTerminal(api, 'chain-of-ops-2')).toMatchObject({ status: 'success', result: { result: { chainId: 'chain-of-ops' } } });
  });

  it('keeps the scheduler mode across a restart', async () => {
    const paused = await api.post('/api/business/scheduler', { action: 'pause' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'updated', scheduler: { mode: 'paused' } });
    expect((await api.post('/api/business/scheduler', { action: 'stop' })).status).toBe(400);

    await service.kill();
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
    expect((await api.get('/api/business/operations')).body.automaticMode).toBe('paused');
    const refused = await api.post('/api/business/cycle/trigger', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual({ decision: 'paused' });
    expect((await api.post('/api/business/scheduler', { action: 'resume' })).body.scheduler.mode).toBe('enabled');
  });
});

describe('the automatic business scheduler in the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir('business-cron-');
    const workspaceRoot = join(base, 'workspace');
    seedDemoWorkspace({ workspaceRoot, docsPath: join(workspaceRoot, 'docs') });
    mkdirSync(join(workspaceRoot, 'business'), { recursive: true });
    writeFileSync(join(workspaceRoot, 'business', 'registry.json'), JSON.stringify(SAMPLE_BUSINESS_REGISTRY));
    // Every second, so the test sees a slot start a cycle and the following slots skip it.
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR, schedulerEnabled: true, businessCycleCron: '* * * * * *' }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('starts a scheduled cycle on its cron, then skips the slots that follow', async () => {
    const cycle = await waitFor(async () => {
      const res = await api.get('/api/business/cycles');
      const first = res.body.cycles?.[0];
      return first?.state === 'completed' ? first : undefined;
    });
    expect(cycle.cycleId).toMatch(/^scheduled-/);
    expect(cycle.trigger).toEqual({ source: 'schedule', reason: 'scheduled cadence', requestedBy: 'scheduler' });
    const skipped = await waitFor(async () => {
      const ops = await api.get('/api/business/operations');
      return ops.body.lastEvaluation?.outcome === 'skipped' ? ops.body.lastEvaluation : undefined;
    });
    expect(['cooldown', 'not-due', 'active']).toContain(skipped.reason);
    expect((await api.get('/api/business/cycles')).body.total).toBe(1);
  });
});
