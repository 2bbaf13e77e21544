import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { tempDir } from '../support/config.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { AGENTS_DIR, STAND_IN_AGENTS_DIR } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** Agents for this service: the scripted summarization stand-in and the real system monitor (remediation lane). */
function agentsDir(base: string): string {
  const dir = join(base, 'agents');
  mkdirSync(dir, { recursive: true });
  cpSync(join(STAND_IN_AGENTS_DIR, 'summarization-agent'), join(dir, 'summarization-agent'), { recursive: true });
  cpSync(join(AGENTS_DIR, 'system-monitor-agent', 'agent.config.json'), join(dir, 'system-monitor-agent', 'agent.config.json'));
  cpSync(join(AGENTS_DIR, 'system-monitor-agent', 'SOUL.md'), join(dir, 'system-monitor-agent', 'SOUL.md'));
  return dir;
}

function alertBody(status: 'firing' | 'resolved', fingerprint: string, alertname: string) {
  return JSON.stringify({
    version: '4',
    status,
    receiver: 'orchestrator',
    alerts: [
      {
        status,
        fingerprint,
        labels: { alertname, severity: 'warning' },
        annotations: { summary: `${alertname} on db1`, description: 'p99 above 2 s for 10 min' },
        startsAt: '2026-03-01T09:00:00Z',
      },
    ],
  });
}

describe('incident ledger through the service', () => {
  let running: RuntimeService;
  let base: string;

  beforeAll(async () => {
    base = tempDir('incidents-it-');
    running = await startRuntimeService({ agentsDir: agentsDir(base), retry: { maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 500 } }, base);
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  async function deliver(body: string, headers: { signature?: string; timestamp?: string } = {}) {
    const timestamp = headers.timestamp ?? String(Math.floor(Date.now() / 1000));
    const signature = headers.signature ?? signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body);
    const res = await fetch(`${running.service.url}/webhook/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-orchestrator-signature': signature, 'x-orchestrator-timestamp': timestamp },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const allIncidents = async () => (await running.api.get('/api/incidents?includeResolved=true&limit=200')).body.incidents as any[];

  it('opens an incident from a signed alert; policies assign an owner and queue remediation; ack and owner show in history; resolved resolves', async () => {
    const { api } = running;
    const fired = await deliver(alertBody('firing', 'it-latency-1', 'HighLatency'));
    expect(fired.status).toBe(200);
    expect(fired.body).toMatchObject({ status: 'accepted', received: 1, incidents: [{ fingerprint: 'alert:it-latency-1', change: 'firing', status: 'active' }] });
    const incidentId = fired.body.incidents[0].incidentId as string;

    const opened = (await api.get(`/api/incidents/${incidentId}`)).body;
    expect(opened).toMatchObject({
      incidentId,
      classification: 'alert',
      severity: 'warning',
      status: 'active',
      title: 'HighLatency on db1',
      owner: 'system-monitor-agent',
      acknowledged: false,
      policy: { remediationTaskType: 'system-monitor', escalationTaskType: 'incident-triage', targetSlaMinutes: 120 },
    });
    expect(opened.policyExecutions.map((e: any) => e.action)).toEqual(['assign-owner', 'queue-remediation']);
    const [task] = opened.remediationTasks;
    expect(task).toMatchObject({ taskType: 'system-monitor', role: 'primary', runId: `incident:${incidentId}:e1:remediation:1` });
    const remediationRun = await waitForTerminal(api, task.runId, 30_000);
    expect(remediationRun.type).toBe('system-monitor');
    expect(remediationRun.status).toBe('success');
    // The remediation's success queues the verifier lane.
    const verified = await waitFor(async () => {
      const r = (await api.get(`/api/incidents/${incidentId}`)).body;
      return r.policyExecutions.some((e: any) => e.action === 'queue-verifier') ? r : undefined;
    }, 30_000, 'the verifier to be queued');
    expect(verified.remediationTasks.map((t: any) => t.role)).toEqual(['primary', 'verifier']);

    // Acknowledgement and owner change: the actor is the key's identity, never a body field.
    expect((await api.post(`/api/incidents/${incidentId}/acknowledge`, { note: 'on it' }, TEST_KEYS.viewer)).status).toBe(403);
    expect((await api.post(`/api/incidents/${incidentId}/acknowledge`, { note: 'on it', actor: 'mallory' })).status).toBe(400);
    const acked = await api.post(`/api/incidents/${incidentId}/acknowledge`, { note: 'on it' });
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({ acknowledged: true, acknowledgedBy: 'ops' });
    expect((await api.post(`/api/incidents/${incidentId}/owner`, { owner: '   ' })).status).toBe(400);
    const owned = await api.post(`/api/incidents/${incidentId}/owner`, { owner: 'dba-team', note: 'database side' });
    expect(owned.body.owner).toBe('dba-team');
    const detail = (await api.get(`/api/incidents/${incidentId}`)).body;
    expect(detail).toMatchObject({ acknowledged: true, owner: 'dba-team' });
    const history = (await api.get(`/api/incidents/${incidentId}/history`)).body;
    expect(history.acknowledgements).toEqual([expect.objectContaining({ actor: 'ops', note: 'on it' })]);
    expect(history.ownershipHistory.map((o: any) => [o.owner, o.actor, o.source])).toEqual([
      ['system-monitor-agent', 'incident-policy', 'policy'],
      ['dba-team', 'ops', 'operator'],
    ]);
    expect(history.history.map((h: any) => h.kind)).toEqual(expect.arrayContaining(['opened', 'owner-changed', 'policy', 'acknowledged']));
    expect(history.history.find((h: any) => h.kind === 'acknowledged')).toMatchObject({ actor: 'ops', summary: 'acknowledged by ops: on it' });
    expect(history.remediationLifecycle.assignment.map((h: any) => h.data.owner)).toEqual(['system-monitor-agent', 'dba-team']);

    // A manual remediation is linked and answers 202 with its run and task.
    expect((await api.post(`/api/incidents/${incidentId}/remediate`, { taskType: 'security-audit' })).status).toBe(400);
    const manual = await api.post(`/api/incidents/${incidentId}/remediate`, { taskType: 'system-monitor', payload: { type: 'health' }, note: 'recheck' });
    expect(manual.status).toBe(202);
    expect(manual.body).toMatchObject({ status: 'queued', incidentId, taskType: 'system-monitor', approvalRequired: false });
    expect((await api.run(manual.body.runId)).body.taskId).toBe(manual.body.taskId);
    expect((await api.get(`/api/incidents/${incidentId}`)).body.remediationTasks).toContainEqual(
      expect.objectContaining({ role: 'manual', runId: manual.body.runId, requestedBy: 'ops', note: 'recheck' }),
    );
    expect((await api.post('/api/incidents/00000000-0000-5000-8000-000000000000/acknowledge', {})).status).toBe(404);

    const resolved = await deliver(alertBody('resolved', 'it-latency-1', 'HighLatency'));
    expect(resolved.body.incidents[0]).toMatchObject({ incidentId, change: 'resolved', status: 'resolved' });
    const after = (await api.get(`/api/incidents/${incidentId}`)).body;
    expect(after).toMatchObject({ status: 'resolved', resolution: 'alert resolved', remediation: { status: 'resolved' } });
    expect((await api.get('/api/incidents')).body.incidents.map((i: any) => i.incidentId)).not.toContain(incidentId);
    expect((await allIncidents()).map((i) => i.incidentId)).toContain(incidentId);
  });

  it('refuses unsigned, tampered, stale and replayed alerts with 401 invalid_signature and ingests nothing', async () => {
    const before = await allIncidents();
    const unsigned = await fetch(`${running.service.url}/webhook/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: alertBody('firing', 'it-unsigned', 'Unsigned'),
    });
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as any).error.code).toBe('invalid_signature');

    const now = String(Math.floor(Date.now() / 1000));
    const tampered = await deliver(alertBody('firing', 'it-tampered', 'Tampered'), { timestamp: now, signature: signAlertDelivery(TEST_WEBHOOK_SECRET, now, alertBody('firing', 'it-other', 'Other')) });
    expect(tampered).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } } });

    const stale = await deliver(alertBody('firing', 'it-stale', 'Stale'), { timestamp: String(Math.floor(Date.now() / 1000) - 301) });
    expect(stale).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } } });

    const wrongKey = alertBody('firing', 'it-wrong-key', 'WrongKey');
    expect((await deliver(wrongKey, { timestamp: now, signature: signAlertDelivery('not-the-secret', now, wrongKey) })).status).toBe(401);

    const once = alertBody('firing', 'it-replay', 'Replay');
    const signature = signAlertDelivery(TEST_WEBHOOK_SECRET, now, once);
    expect((await deliver(once, { timestamp: now, signature })).status).toBe(200);
    const replayed = await deliver(once, { timestamp: now, signature });
    expect(replayed).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } } });

    const invalidButSigned = '{"alerts":"nope"}';
    expect((await deliver(invalidButSigned)).status).toBe(400);

    const after = await allIncidents();
    const fingerprints = after.map((i) => i.fingerprint);
    for (const refused of ['alert:it-unsigned', 'alert:it-tampered', 'alert:it-other', 'alert:it-stale', 'alert:it-wrong-key']) expect(fingerprints).not.toContain(refused);
    const replay = after.find((i) => i.fingerprint === 'alert:it-replay');
    expect(replay.occurrences).toBe(1);
    expect(after.length).toBe(before.length + 1);
  });

  it('opens one incident for a run that exhausts its retries, not one per attempt', async () => {
    const { api } = running;
    const res = await api.trigger('summarize-content', { content: 'x', mode: 'crash', idempotencyKey: 'it-crash' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, 'it-crash', 30_000);
    expect(run.status).toBe('failed');
    expect(run.queueAttempts.filter((a: any) => a.state === 'failed')).toHaveLength(2);

    const incident = await waitFor(async () => {
      const found = (await allIncidents()).filter((i) => i.linkedRunIds.includes('it-crash') && i.fingerprint.startsWith('run:'));
      return found.length > 0 && found[0].status === 'active' ? found : undefined;
    }, 20_000, 'the run incident to be active');
    expect(incident).toHaveLength(1);
    expect(incident[0]).toMatchObject({ fingerprint: 'run:it-crash', classification: 'retry-recovery', severity: 'warning', title: 'summarize-content run it-crash failed after 2 attempts' });
    // Opened while the run was retrying (watching), made active when the retries ran out.
    expect(incident[0].history[0]).toMatchObject({ kind: 'opened', data: { status: 'watching' } });
    expect(incident[0].history.find((h: any) => h.kind === 'status-changed').summary).toBe('status watching -> active');
    const list = (await api.get('/api/incidents?classification=retry-recovery&limit=200')).body;
    expect(list.incidents.filter((i: any) => i.linkedRunIds.includes('it-crash'))).toHaveLength(1);
    expect((await api.get('/api/incidents?limit=0')).status).toBe(400);
    expect((await api.get('/api/incidents?includeResolved=yes')).status).toBe(400);
  });
});
