import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAlertSignature } from '../../src/incidents/alert-signature.js';
import { createAlertRelay, relaySettings } from '../../src/relay/alert-relay.js';
import { closedPortUrl, startLoopbackServer } from '../support/loopback-server.js';

const SECRET = 'relay-webhook-secret-1';
const BODY = JSON.stringify({ version: '4', status: 'firing', alerts: [{ status: 'firing', labels: { alertname: 'X' }, fingerprint: 'f1' }] });

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function relayTo(targetUrl: string): Promise<string> {
  const server = createAlertRelay({ targetUrl, secret: SECRET });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('the alert relay', () => {
  it('forwards an Alertmanager body unchanged, signed with the webhook secret, and answers with the service', async () => {
    const target = await startLoopbackServer({ '/webhook/alerts': { status: 202, body: '{"status":"accepted"}' } });
    cleanups.push(target.close);
    const relay = await relayTo(`${target.url}/webhook/alerts`);
    const res = await fetch(relay, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ forwarded: true, status: 202 });
    const [received] = target.received;
    expect(received!.body).toBe(BODY);
    const check = verifyAlertSignature(
      SECRET,
      { rawBody: received!.body, signature: received!.headers['x-orchestrator-signature'] as string, timestamp: received!.headers['x-orchestrator-timestamp'] as string },
      Date.now(),
    );
    expect(check.ok).toBe(true);
  });

  it('answers 502 when the service refuses or is away, so Alertmanager retries; 405 to anything but POST', async () => {
    const target = await startLoopbackServer({ '/webhook/alerts': { status: 401, body: '{"error":{}}' } });
    cleanups.push(target.close);
    const refused = await fetch(await relayTo(`${target.url}/webhook/alerts`), { method: 'POST', body: BODY });
    expect(refused.status).toBe(502);
    const away = await fetch(await relayTo(`${await closedPortUrl()}/webhook/alerts`), { method: 'POST', body: BODY });
    expect(away.status).toBe(502);
    expect((await fetch(await relayTo(`${target.url}/webhook/alerts`))).status).toBe(405);
  });

  it('reads its settings from the environment: the webhook secret required, the service on this host by default', () => {
    expect(relaySettings({})).toBe('WEBHOOK_SECRET is required');
    expect(relaySettings({ WEBHOOK_SECRET: 's', PORT: '4300' })).toEqual({ port: 9095, targetUrl: 'http://127.0.0.1:4300/webhook/alerts', secret: 's' });
    expect(relaySettings({ WEBHOOK_SECRET: 's', RELAY_PORT: 'x' })).toMatch(/RELAY_PORT/);
    expect(relaySettings({ WEBHOOK_SECRET: 's', RELAY_TARGET_URL: 'ftp://x' })).toMatch(/not an http/);
  });
});
