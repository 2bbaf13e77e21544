import { afterEach, describe, expect, it } from 'vitest';
import { KNOWN_SECRET_MARKER } from '../../src/redaction/known-secrets.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient, waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startReceiver } from './harness.js';

const SECRET = 'alert-sink-secret-for-tests-9f2c';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serviceWithAlerts(hookUrl: string): Promise<ComposedService> {
  const composed = await startComposedService({
    runtime: true,
    env: { ALERT_HOOK_SECRET: SECRET },
    config: {
      retry: { maxAttempts: 1 },
      alerts: {
        evaluateEverySeconds: 60,
        deliverEverySeconds: 0.1,
        sinks: { ops: { kind: 'webhook', url: `${hookUrl}/alerts?token=receiver-token`, secretEnv: 'ALERT_HOOK_SECRET', allowPrivate: true, timeoutMs: 1000 } },
        rules: [{ id: 'summaries-failing', match: { type: 'summarize-content', status: 'failed', finalFailureOnly: true }, dedupeWindowSeconds: 300, sinks: ['ops'] }],
      },
    },
  });
  composed.service.alerts.start();
  cleanups.push(async () => {
    await composed.service.alerts.stop();
    await composed.close();
  });
  return composed;
}

describe('alerts in the composed service', () => {
  it('a run that fails for good is alerted through the run-finished hook, and GET /api/alerts shows where it went', async () => {
    const hook = await startReceiver(SECRET);
    cleanups.push(hook.close);
    const composed = await serviceWithAlerts(hook.url);
    const api = apiClient(composed.url);

    const admitted = await api.trigger('summarize-content', { content: 'x', mode: 'logical-failure', idempotencyKey: 'alerted-failure' });
    expect(admitted.status).toBe(202);
    const run = await waitForTerminal(api, admitted.body.runId);
    expect(run.status).toBe('failed');

    // The evaluator's own tick is a minute away: the finish itself made the notice.
    const [received] = await waitFor(async () => (hook.accepted().length > 0 ? hook.accepted() : undefined), 10_000, 'the webhook delivery');
    expect(received!.signatureValid).toBe(true);
    expect(received!.path).toBe('/alerts?token=receiver-token');
    expect(JSON.parse(received!.body)).toMatchObject({ status: 'firing', ruleId: 'summaries-failing', subject: 'summarize-content', labels: { runId: run.runId } });

    const listed = await waitFor(async () => {
      const res = await api.get('/api/alerts', TEST_KEYS.viewer);
      return res.body.alerts?.[0]?.deliveries?.[0]?.status === 'delivered' ? res : undefined;
    });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    expect(listed.body.alerts[0]).toMatchObject({ kind: 'firing', ruleId: 'summaries-failing', deliveries: [{ sink: 'ops', status: 'delivered', attempts: 1 }] });
    expect(hook.accepted()).toHaveLength(1);
  });

  it('shows the rules and sinks to a viewer without a secret or a receiver token, and refuses a request without a key', async () => {
    const hook = await startReceiver(SECRET);
    cleanups.push(hook.close);
    const composed = await serviceWithAlerts(hook.url);
    const api = apiClient(composed.url);

    const rules = await api.get('/api/alerts/rules', TEST_KEYS.viewer);
    expect(rules.status).toBe(200);
    expect(rules.body.rules).toEqual([
      { id: 'summaries-failing', match: { type: 'summarize-content', status: 'failed', finalFailureOnly: true }, severity: 'warning', dedupeWindowSeconds: 300, sinks: ['ops'] },
    ]);
    expect(rules.body.sinks).toEqual([
      { name: 'ops', kind: 'webhook', origin: hook.url, allowPrivate: true, timeoutMs: 1000, retry: { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 300_000 }, secretEnv: 'ALERT_HOOK_SECRET' },
    ]);
    const text = JSON.stringify(rules.body);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('receiver-token');

    expect((await api.get('/api/alerts/dead-letters', TEST_KEYS.viewer)).body).toEqual({ count: 0, deadLetters: [] });
    for (const path of ['/api/alerts', '/api/alerts/rules', '/api/alerts/dead-letters']) {
      expect((await api.get(path, null)).status).toBe(401);
    }
  });

  it('redacts a sink signing secret from what runs keep, like the service own secrets', async () => {
    const hook = await startReceiver(SECRET);
    cleanups.push(hook.close);
    const composed = await serviceWithAlerts(hook.url);
    const api = apiClient(composed.url);
    const admitted = await api.trigger('summarize-content', { content: `the hook secret is ${SECRET}`, idempotencyKey: 'secret-in-payload' });
    expect(admitted.status).toBe(202);
    const run = await api.run(admitted.body.runId);
    const text = JSON.stringify(run.body);
    expect(text).not.toContain(SECRET);
    expect(text).toContain(KNOWN_SECRET_MARKER);
  });
});
