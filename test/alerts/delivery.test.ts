import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { manualClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { alertInstance, startReceiver } from './harness.js';

const SECRET = 'alert-sink-secret-for-tests';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fileStore(): Promise<StateStore> {
  const store = openStateStore(join(tempDir('alerts-'), 'state.json'));
  await store.open();
  cleanups.push(() => store.close());
  return store;
}

async function receiver() {
  const r = await startReceiver(SECRET);
  cleanups.push(r.close);
  return r;
}

function incidentRules(url: string, kind: 'webhook' | 'alertmanager', extra: Record<string, unknown> = {}) {
  return {
    sinks: {
      out: kind === 'webhook' ? { kind, url: `${url}/hook`, secretEnv: 'ALERT_SECRET', allowPrivate: true, timeoutMs: 300, ...extra } : { kind, url, allowPrivate: true, timeoutMs: 300, ...extra },
    },
    rules: [{ id: 'incident-opened', match: { incident: 'opened' as const }, severity: 'critical' as const, dedupeWindowSeconds: 600, sinks: ['out'] }],
  };
}

const signal = { fingerprint: 'disk:full', classification: 'service-runtime', severity: 'critical' as const, title: 'disk full', summary: 'the state disk is full' };

describe('alert delivery to a signed webhook', () => {
  it('survives a receiver that fails, hangs and recovers: the alert arrives once, signed, and its recovery after it', async () => {
    const store = await fileStore();
    const clock = manualClock();
    const hook = await receiver();
    const { alerts, ledger } = alertInstance(store, clock, incidentRules(hook.url, 'webhook', { retry: { baseDelayMs: 1000, maxAttempts: 5 } }), { ALERT_SECRET: SECRET }, 'instance-a');

    await ledger.reportSignal(signal);
    expect(await alerts.evaluate()).toEqual({ fired: 1, resolved: 0 });

    hook.setMode('fail');
    await alerts.deliver();
    hook.setMode('hang');
    await alerts.deliver(); // still backing off: nothing sent
    expect(hook.received).toHaveLength(1);
    clock.advance(1000);
    await alerts.deliver(); // attempt 2 hangs past the sink's 300 ms timeout
    expect(hook.received).toHaveLength(2);
    let [view] = (await alerts.list(10)).alerts;
    expect(view!.deliveries[0]).toMatchObject({ status: 'pending', attempts: 2 });
    expect(view!.deliveries[0]!.lastError).toMatch(/timeout|abort/i);

    hook.setMode('ok');
    clock.advance(2000);
    await alerts.deliver();
    // Within the dedupe window the condition still holds: no second notice, no second send.
    clock.advance(60_000);
    expect(await alerts.evaluate()).toEqual({ fired: 0, resolved: 0 });
    await alerts.deliver();

    const accepted = hook.accepted();
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.signatureValid).toBe(true);
    const body = JSON.parse(accepted[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'firing', ruleId: 'incident-opened', severity: 'critical' });
    expect(String(body.summary)).toContain('disk full');
    expect(accepted[0]!.headers['x-orchestrator-delivery']).toBe(body.deliveryId);
    [view] = (await alerts.list(10)).alerts;
    expect(view!.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 3, sink: 'out' });

    await ledger.resolveSignal(signal.fingerprint);
    expect(await alerts.evaluate()).toEqual({ fired: 0, resolved: 1 });
    await alerts.deliver();
    const recovery = JSON.parse(hook.accepted()[1]!.body) as Record<string, unknown>;
    expect(recovery).toMatchObject({ status: 'resolved', ruleId: 'incident-opened' });
    expect(recovery.endsAt).toBe(clock.now().toISOString());
    expect(hook.accepted()[1]!.signatureValid).toBe(true);
    expect(hook.accepted()).toHaveLength(2);
  });

  it('dead-letters a delivery after its last retry and keeps it listed', async () => {
    const store = await fileStore();
    const clock = manualClock();
    const hook = await receiver();
    hook.setMode('fail');
    const { alerts, ledger } = alertInstance(store, clock, incidentRules(hook.url, 'webhook', { retry: { baseDelayMs: 100, maxAttempts: 2 } }), { ALERT_SECRET: SECRET }, 'instance-a');
    await ledger.reportSignal(signal);
    await alerts.evaluate();
    await alerts.deliver();
    clock.advance(100);
    await alerts.deliver();
    clock.advance(10_000);
    await alerts.deliver();
    expect(hook.received).toHaveLength(2);
    const dead = await alerts.deadLetters();
    expect(dead.count).toBe(1);
    expect(dead.deadLetters[0]).toMatchObject({ status: 'dead', attempts: 2, sink: 'out', ruleId: 'incident-opened', kind: 'firing' });
    expect(dead.deadLetters[0]!.lastError).toContain('HTTP 503');
  });

  it('refuses a loopback receiver unless the sink allows private addresses', async () => {
    const store = await fileStore();
    const clock = manualClock();
    const hook = await receiver();
    const { alerts, ledger } = alertInstance(store, clock, incidentRules(hook.url, 'webhook', { allowPrivate: false }), { ALERT_SECRET: SECRET }, 'instance-a');
    await ledger.reportSignal(signal);
    await alerts.evaluate();
    await alerts.deliver();
    expect(hook.received).toHaveLength(0);
    const [view] = (await alerts.list(10)).alerts;
    expect(view!.deliveries[0]!.lastError).toContain('alerts.sinks.out.allowPrivate');
  });
});

describe('alert delivery to Alertmanager (stand-in)', () => {
  it('pushes the firing alert to /api/v2/alerts and ends it with endsAt on recovery', async () => {
    const store = await fileStore();
    const clock = manualClock();
    const am = await receiver();
    const { alerts, ledger } = alertInstance(store, clock, incidentRules(am.url, 'alertmanager'), {}, 'instance-a');
    await ledger.reportSignal(signal);
    await alerts.evaluate();
    await alerts.deliver();
    clock.advance(5000);
    await ledger.resolveSignal(signal.fingerprint);
    await alerts.evaluate();
    await alerts.deliver();

    expect(am.accepted().map((r) => r.path)).toEqual(['/api/v2/alerts', '/api/v2/alerts']);
    const [firing] = JSON.parse(am.accepted()[0]!.body) as Array<Record<string, Record<string, string> | string>>;
    const [resolved] = JSON.parse(am.accepted()[1]!.body) as Array<Record<string, Record<string, string> | string>>;
    expect(firing!.labels).toMatchObject({ alertname: 'incident-opened', severity: 'critical', service: 'orchestrator' });
    expect((firing!.annotations as Record<string, string>).summary).toContain('disk full');
    expect(firing!.startsAt).toBe('2026-03-01T10:00:00.000Z');
    // While firing, endsAt lies past the next repeat (two dedupe windows on).
    expect(Date.parse(firing!.endsAt as string)).toBeGreaterThan(clock.now().getTime());
    expect(resolved!.labels).toEqual(firing!.labels);
    expect(resolved!.startsAt).toBe(firing!.startsAt);
    expect(resolved!.endsAt).toBe('2026-03-01T10:00:05.000Z');
  });
});
