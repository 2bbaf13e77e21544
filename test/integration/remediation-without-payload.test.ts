import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { REMEDIATION_TASK_TYPES } from '../../src/incidents/manual-remediation.js';
import { TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** What `{taskType}` alone answers for each remediation type, with and without a scope on the incident. */
const WITHOUT_SCOPE: Record<string, { status: number; missing?: string }> = {
  'drift-repair': { status: 202 },
  'system-monitor': { status: 202 },
  'qa-verification': { status: 400, missing: 'target' },
  'build-refactor': { status: 400, missing: 'scope' },
};
/** With a scope, the incident supplies qa-verification's target and build-refactor's scope. */
const SUPPLIED_FROM_SCOPE: Record<string, string> = { 'qa-verification': 'target', 'build-refactor': 'scope' };

describe('incident remediation with only a task type', () => {
  let running: RuntimeService;

  beforeAll(async () => {
    running = await startRuntimeService();
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  /** Opens an incident through the signed alert webhook and returns its id. */
  async function openIncident(fingerprint: string, labels: Record<string, string>): Promise<string> {
    const body = JSON.stringify({
      version: '4',
      status: 'firing',
      alerts: [{ status: 'firing', fingerprint, labels: { alertname: fingerprint, severity: 'warning', ...labels }, annotations: { summary: fingerprint } }],
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await fetch(`${running.service.url}/webhook/alerts`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body),
        'x-orchestrator-timestamp': timestamp,
      },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { incidents: Array<{ incidentId: string }> }).incidents[0]!.incidentId;
  }

  const remediate = (incidentId: string, taskType: string) => running.api.post(`/api/incidents/${incidentId}/remediate`, { taskType });

  it('covers every type the catalog allows as a remediation', () => {
    expect(Object.keys(WITHOUT_SCOPE).sort()).toEqual([...REMEDIATION_TASK_TYPES].sort());
  });

  it('admits each type that needs no payload, and names the field the incident cannot supply for the others', async () => {
    const incidentId = await openIncident('no-scope-alert', {});
    for (const [taskType, expected] of Object.entries(WITHOUT_SCOPE)) {
      const res = await remediate(incidentId, taskType);
      expect(res.status, taskType).toBe(expected.status);
      if (expected.status === 202) {
        expect(res.body, taskType).toMatchObject({ status: 'queued', incidentId, taskType });
        const run = (await running.api.run(res.body.runId)).body;
        expect(run.type).toBe(taskType);
        continue;
      }
      expect(res.body.error.code, taskType).toBe('invalid_request');
      expect(res.body.error.message, taskType).toMatch(new RegExp(`${taskType} needs ${expected.missing}`));
      expect(res.body.error.details, taskType).toEqual([
        { path: `/body/payload/${expected.missing}`, message: expect.stringMatching(/is required: .* names no scope/) },
      ]);
    }
    const incident = (await running.api.get(`/api/incidents/${incidentId}`)).body;
    const manual = incident.remediationTasks.filter((t: { role: string }) => t.role === 'manual').map((t: { taskType: string }) => t.taskType);
    expect(manual.sort()).toEqual(['drift-repair', 'system-monitor']);
  });

  it("fills a required workspace path from the incident's scope", async () => {
    const incidentId = await openIncident('scoped-alert', { scope: 'projects/app' });
    for (const [taskType, field] of Object.entries(SUPPLIED_FROM_SCOPE)) {
      const res = await remediate(incidentId, taskType);
      expect(res.status, taskType).toBe(202);
      const run = (await running.api.run(res.body.runId)).body;
      expect(run.payload[field], taskType).toBe('projects/app');
    }
    // build-refactor stays bounded and held for approval, payload or not.
    const refactor = (await running.api.get(`/api/incidents/${incidentId}`)).body.remediationTasks.find(
      (t: { taskType: string }) => t.taskType === 'build-refactor',
    );
    expect(refactor.status).toBe('awaiting-approval');
  });

  it('still refuses a scope outside the workspace, whoever supplied it', async () => {
    const incidentId = await openIncident('escaping-alert', { scope: '../outside' });
    const res = await remediate(incidentId, 'qa-verification');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('scope_outside_workspace');
  });
});
