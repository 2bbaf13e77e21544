import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { seriesValue } from '../support/metrics-text.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/**
 * The run metrics of the built service, scraped from its metrics listener after runs of every
 * outcome: each series named in docs/metrics.md, with the values those runs must give it.
 */
describe('run metrics scraped from the running service', () => {
  let running: RuntimeService;
  let text: string;
  const TYPE = 'summarize-content';
  const series = (name: string, labels: string) => seriesValue(text, `${name}{${labels}}`);
  const scrape = async () => {
    const res = await fetch(running.service.metricsUrl!);
    expect(res.status).toBe(200);
    return res.text();
  };
  const decide = (taskId: string, decision: 'approved' | 'rejected') =>
    running.api.post(`/api/approvals/${encodeURIComponent(taskId)}/decision`, { decision }, TEST_KEYS.admin);

  beforeAll(async () => {
    running = await startRuntimeService({ concurrency: 4, retry: { maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 500 } });
    const { api, base } = running;
    const log = join(base, 'attempts.jsonl');
    writeFileSync(log, '');
    const trigger = async (payload: Record<string, unknown>, type = TYPE) => {
      const res = await api.trigger(type, payload);
      expect(res.status).toBe(202);
      return res.body as { runId: string; taskId: string };
    };

    const succeeded = await trigger({ content: 'x', mode: 'success', idempotencyKey: 'm-success' });
    const failed = await trigger({ content: 'x', mode: 'logical-failure', idempotencyKey: 'm-failure' });
    const retried = await trigger({ content: 'x', mode: 'fail-first', log, idempotencyKey: 'm-retry' });
    const rejected = await trigger({ content: 'x', requiresApproval: true, idempotencyKey: 'm-rejected' });
    const approved = await trigger({ content: 'x', requiresApproval: true, idempotencyKey: 'm-approved' });
    // No agent of the stand-in folder serves normalize-data: its worker cannot be started.
    const unspawnable = await trigger({ records: [{ a: 1 }], schema: { a: 'integer' }, idempotencyKey: 'm-unspawnable' }, 'normalize-data');

    expect((await decide(rejected.taskId, 'rejected')).status).toBe(200);
    expect((await decide(approved.taskId, 'approved')).status).toBe(200);
    // Left pending: the approval gauges read it.
    await trigger({ content: 'x', requiresApproval: true, idempotencyKey: 'm-pending' });

    const ended = await Promise.all(
      [succeeded.runId, failed.runId, retried.runId, rejected.runId, `approval-replay:${approved.taskId}`, unspawnable.runId].map((id) => waitForTerminal(api, id, 20_000)),
    );
    expect(ended.map((r) => r.status)).toEqual(['success', 'failed', 'success', 'failed', 'success', 'failed']);
    expect(ended[2].attempt).toBe(2);
    text = await scrape();
  }, 60_000);
  afterAll(async () => {
    await running?.service.kill();
  });

  it('counts runs finished by type and status: a rejected approval is `rejected`, not `failed`, and an approved held run is not a success', () => {
    const finished = (status: string) => series('orchestrator_runs_finished_total', `type="${TYPE}",status="${status}"`);
    // The plain success, the retried run, the approved work's replay.
    expect(finished('success')).toBe(3);
    expect(finished('failed')).toBe(1);
    expect(finished('rejected')).toBe(1);
    expect(finished('approved')).toBe(1);
    expect(finished('cancelled')).toBe(0);
  });

  it('counts attempts and retries, and observes each attempt in the duration and queue-wait histograms', () => {
    // One attempt each for success, failure and replay; two for the retried run.
    expect(series('orchestrator_run_attempts_total', `type="${TYPE}"`)).toBe(5);
    expect(series('orchestrator_run_retries_total', `type="${TYPE}"`)).toBe(1);
    expect(series('orchestrator_run_duration_seconds_count', `type="${TYPE}"`)).toBe(5);
    expect(series('orchestrator_run_duration_seconds_bucket', `le="+Inf",type="${TYPE}"`)).toBe(5);
    expect(series('orchestrator_run_duration_seconds_sum', `type="${TYPE}"`)).toBeGreaterThan(0);
    expect(series('orchestrator_run_queue_wait_seconds_count', `type="${TYPE}"`)).toBe(5);
    // The queue was never long: every attempt started within a few seconds of its admission.
    expect(series('orchestrator_run_queue_wait_seconds_bucket', `le="10",type="${TYPE}"`)).toBe(5);
  });

  it('counts each worker that could not be started, and its run as failed once its retry failed too', () => {
    // A spawn error is transient: the run failed twice, once per attempt.
    expect(series('orchestrator_worker_spawn_failures_total', 'type="normalize-data"')).toBe(2);
    expect(series('orchestrator_run_attempts_total', 'type="normalize-data"')).toBe(2);
    expect(series('orchestrator_run_retries_total', 'type="normalize-data"')).toBe(1);
    expect(series('orchestrator_worker_spawn_failures_total', `type="${TYPE}"`)).toBe(0);
    expect(series('orchestrator_runs_finished_total', 'type="normalize-data",status="failed"')).toBe(1);
  });

  it('reads executing runs, pending approvals and the oldest approval age from the store', () => {
    expect(series('orchestrator_runs_executing', `type="${TYPE}"`)).toBe(0);
    expect(seriesValue(text, 'orchestrator_approvals_pending')).toBe(1);
    const age = seriesValue(text, 'orchestrator_approval_oldest_pending_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60);
  });

  it('reads open incidents by severity as the incident list shows them', async () => {
    const body = JSON.stringify({
      version: '4',
      status: 'firing',
      receiver: 'orchestrator',
      alerts: [{ status: 'firing', fingerprint: 'metrics-disk', labels: { alertname: 'DiskFull', severity: 'critical' }, annotations: { summary: 'disk full' }, startsAt: '2026-03-01T09:00:00Z' }],
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const fired = await fetch(`${running.service.url}/webhook/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body), 'x-orchestrator-timestamp': timestamp },
      body,
    });
    expect(fired.status).toBe(200);
    // The gauges reuse a reading for a few seconds: wait until they show the alert's incident.
    await waitFor(async () => {
      const open = (await running.api.get('/api/incidents?limit=200')).body.incidents as Array<{ severity: string }>;
      const scraped = await scrape();
      const counts = ['critical', 'warning', 'info'].map((severity) => [
        seriesValue(scraped, `orchestrator_incidents_open{severity="${severity}"}`),
        open.filter((i) => i.severity === severity).length,
      ]);
      return counts[0]![0]! >= 1 && counts.every(([gauge, listed]) => gauge === listed) ? true : undefined;
    }, 15_000, 'the open-incident gauges to match the incident list');
  });
});
