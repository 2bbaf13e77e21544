import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createBridge, createBridgeServer } from '../../bridge/index.js';
import { chatText } from '../../src/alerts/chat-text.js';
import type { AlertNotice } from '../../src/alerts/types.js';
import { startComposedService } from '../support/composed-service.js';
import { apiClient, waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

const BRIDGE_SECRET = 'bridge-secret-for-chat-sink-1';

/**
 * The `/orch` bridge's chat channel as an alert sink: the service posts each notice, signed with
 * the bridge's secret, to the bridge's /notify; the bridge posts it to the configured channel
 * through the gateway's postToChat, with the command to follow it up.
 */
describe('the chat alert sink through the real bridge', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('posts a run that failed for good to the channel, once, and shows the delivery as delivered', async () => {
    const posted: Array<{ channel: string; text: string }> = [];
    const bridge = createBridge({
      url: 'http://127.0.0.1:9',
      users: { alice: TEST_KEYS.operator },
      postToChat: async (channel, text) => {
        posted.push({ channel, text });
      },
    });
    const server: Server = createBridgeServer({ bridge, secret: BRIDGE_SECRET });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const notifyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;

    const composed = await startComposedService({
      runtime: true,
      env: { ORCH_BRIDGE_SECRET: BRIDGE_SECRET },
      config: {
        retry: { maxAttempts: 1 },
        alerts: {
          evaluateEverySeconds: 60,
          deliverEverySeconds: 0.1,
          sinks: { chat: { kind: 'chat', url: notifyUrl, secretEnv: 'ORCH_BRIDGE_SECRET', channel: 'ops-alerts', allowPrivate: true, timeoutMs: 1000 } },
          rules: [{ id: 'summaries-failing', match: { type: 'summarize-content', status: 'failed', finalFailureOnly: true }, severity: 'critical', sinks: ['chat'] }],
        },
      },
    });
    composed.service.alerts.start();
    cleanups.push(async () => {
      await composed.service.alerts.stop();
      await composed.close();
    });
    const api = apiClient(composed.url);

    const admitted = await api.trigger('summarize-content', { content: 'x', mode: 'logical-failure', idempotencyKey: 'chat-alerted' });
    expect((await waitForTerminal(api, admitted.body.runId)).status).toBe('failed');
    const [message] = await waitFor(async () => (posted.length > 0 ? posted : undefined), 10_000, 'the chat post');
    expect(message!.channel).toBe('ops-alerts');
    expect(message!.text).toMatch(/^\[CRITICAL\] summaries-failing: /);
    expect(message!.text).toContain('Follow up: /orch status chat-alerted');

    const listed = await waitFor(async () => {
      const res = await api.get('/api/alerts', TEST_KEYS.viewer);
      return res.body.alerts?.[0]?.deliveries?.[0]?.status === 'delivered' ? res : undefined;
    });
    expect(listed.body.alerts[0].deliveries).toMatchObject([{ sink: 'chat', status: 'delivered', attempts: 1 }]);
    const rules = await api.get('/api/alerts/rules', TEST_KEYS.viewer);
    expect(rules.body.sinks).toMatchObject([{ name: 'chat', kind: 'chat', channel: 'ops-alerts', secretEnv: 'ORCH_BRIDGE_SECRET' }]);
    expect(JSON.stringify(rules.body)).not.toContain(BRIDGE_SECRET);
    expect(posted).toHaveLength(1);
  });
});

describe('chat text of a notice', () => {
  const notice = (over: Partial<AlertNotice>): AlertNotice => ({
    noticeId: 'n',
    ruleId: 'r',
    subject: 's',
    kind: 'firing',
    severity: 'warning',
    at: '2026-01-01T00:00:00.000Z',
    startsAt: '2026-01-01T00:00:00.000Z',
    endsAt: null,
    validUntil: null,
    summary: 'something happened',
    labels: {},
    sinks: ['chat'],
    ...over,
  });
  it('says what fired or cleared and how to follow it up', () => {
    expect(chatText(notice({}))).toBe('[WARNING] r: something happened');
    expect(chatText(notice({ kind: 'resolved', labels: { incidentId: 'i-1' } }))).toBe('[RESOLVED] r: something happened\nFollow up: /orch incidents');
    expect(chatText(notice({ labels: { runId: 'held-1', expiresAt: '2026-01-01T01:00:00.000Z' } }))).toBe('[WARNING] r: something happened\nFollow up: /orch approvals');
  });
});
