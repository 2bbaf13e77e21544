import { afterEach, describe, expect, it } from 'vitest';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { waitFor } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { startRuntimeService } from '../support/runtime-service.js';
import { startReceiver } from './harness.js';

const SECRET = 'alert-sink-secret-started-7c1d';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Posts an Alertmanager webhook body to the service's signed ingest, as Alertmanager's relay would. */
async function ingest(url: string, status: 'firing' | 'resolved') {
  const alert = { status, labels: { alertname: 'DiskFull', severity: 'critical' }, annotations: { summary: 'the state disk is full' }, startsAt: '2026-03-01T10:00:00Z', endsAt: status === 'resolved' ? new Date().toISOString() : '0001-01-01T00:00:00Z', fingerprint: 'disk-full-1' };
  const body = JSON.stringify({ version: '4', status, alerts: [alert] });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${url}/webhook/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-orchestrator-timestamp': timestamp, 'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body) },
    body,
  });
  expect(res.status).toBeLessThan(300);
}

describe('alerting in the started service', () => {
  it('opens an incident from the signed ingest, alerts it to the webhook sink on its own timers, and sends the recovery once it resolves', async () => {
    const hook = await startReceiver(SECRET);
    cleanups.push(hook.close);
    const { service } = await startRuntimeService(
      {
        alerts: {
          evaluateEverySeconds: 0.2,
          deliverEverySeconds: 0.1,
          sinks: { ops: { kind: 'webhook', url: `${hook.url}/in`, secretEnv: 'ALERT_HOOK_SECRET', allowPrivate: true } },
          rules: [{ id: 'incident-opened', match: { incident: 'opened' }, severity: 'critical', dedupeWindowSeconds: 600, sinks: ['ops'] }],
        },
      },
      undefined,
      { ALERT_HOOK_SECRET: SECRET },
    );
    cleanups.push(async () => {
      await service.kill();
    });

    await ingest(service.url, 'firing');
    const [firing] = await waitFor(async () => (hook.accepted().length >= 1 ? hook.accepted() : undefined), 10_000, 'the firing notice');
    expect(firing!.signatureValid).toBe(true);
    expect(JSON.parse(firing!.body)).toMatchObject({ status: 'firing', ruleId: 'incident-opened' });

    await ingest(service.url, 'resolved');
    const notices = await waitFor(async () => (hook.accepted().length >= 2 ? hook.accepted() : undefined), 10_000, 'the recovery notice');
    expect(JSON.parse(notices[1]!.body)).toMatchObject({ status: 'resolved', ruleId: 'incident-opened' });
    expect(notices[1]!.signatureValid).toBe(true);

    const listed = await fetch(`${service.url}/api/alerts`, { headers: { authorization: `Bearer ${TEST_KEYS.viewer}` } });
    const body = (await listed.json()) as { alerts: Array<{ kind: string; deliveries: Array<{ status: string }> }> };
    expect(body.alerts.map((a) => [a.kind, a.deliveries[0]!.status])).toEqual([
      ['resolved', 'delivered'],
      ['firing', 'delivered'],
    ]);
    // Several evaluation ticks passed within the window: still one firing.
    expect(hook.accepted()).toHaveLength(2);
  });
});
