import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createBridge, createBridgeServer } from '../../bridge/index.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient, waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

const BRIDGE_SECRET = 'bridge-secret-for-approval-links-1';
const HOOK_SECRET = 'hook-secret-for-approval-links-1';
const CONSOLE = 'https://orch.example.test';

/** A webhook receiver that refuses its first request echoing the first link it got (as some echo what they refuse), then takes them. */
async function echoingReceiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const url = (JSON.parse(body) as { approval?: { links: Array<{ url: string }> } }).approval?.links[0]?.url;
      if (bodies.length === 1) res.writeHead(503).end(`cannot take ${url?.slice(url.indexOf('#'))}`);
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, bodies, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/** The real bridge on loopback, its chat posts kept. */
async function chatBridge() {
  const posted: string[] = [];
  const bridge = createBridge({ url: 'http://127.0.0.1:9', users: { alice: TEST_KEYS.operator }, postToChat: async (_channel, text) => void posted.push(text) });
  const server: Server = createBridgeServer({ bridge, secret: BRIDGE_SECRET });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, posted, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify` };
}

/**
 * Approval notices carry signed approval links, made through the approval links' machinery at
 * send time, for each approver who may decide; the secrets reach the receivers and nothing else
 * (not the service's log, not `GET /api/alerts`); config `alerts.approvalLinks: false` sends the
 * approve page instead.
 */
describe('approval links in alert and chat messages', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function serviceAlerting(approvalLinks: boolean, logLines: string[]) {
    const hook = await echoingReceiver();
    const chat = await chatBridge();
    const composed: ComposedService = await startComposedService({
      env: { ORCH_BRIDGE_SECRET: BRIDGE_SECRET, APPROVAL_HOOK_SECRET: HOOK_SECRET },
      logger: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
      config: {
        alerts: {
          evaluateEverySeconds: 0.2,
          deliverEverySeconds: 0.1,
          approvalLinks,
          consoleUrl: CONSOLE,
          sinks: {
            chat: { kind: 'chat', url: chat.url, secretEnv: 'ORCH_BRIDGE_SECRET', channel: 'ops', allowPrivate: true, timeoutMs: 1000 },
            hook: { kind: 'webhook', url: hook.url, secretEnv: 'APPROVAL_HOOK_SECRET', allowPrivate: true, timeoutMs: 1000, retry: { maxAttempts: 3, baseDelayMs: 50 } },
          },
          rules: [{ id: 'approvals-waiting', match: { approvalPending: true }, sinks: ['chat', 'hook'] }],
        },
      },
    });
    composed.service.alerts.start();
    cleanups.push(async () => {
      await composed.service.alerts.stop();
      await composed.close();
      await new Promise<void>((resolve) => hook.server.close(() => resolve()));
      await new Promise<void>((resolve) => chat.server.close(() => resolve()));
    });
    return { composed, hook, chat, api: apiClient(composed.url) };
  }

  it('names a signed link per eligible approver in the chat text and the webhook body; one decides as its approver; no secret is logged or listed', async () => {
    const logLines: string[] = [];
    const { composed, hook, chat, api } = await serviceAlerting(true, logLines);
    const held = await api.trigger('summarize-content', { content: 'x', requiresApproval: true, idempotencyKey: 'link-held' });
    expect(held.status).toBe(202);
    const approvalId = (await api.get('/api/tasks/runs/link-held')).body.taskId as string;

    const [text] = await waitFor(async () => (chat.posted.length > 0 ? chat.posted : undefined), 10_000, 'the chat post');
    expect(text).toMatch(/^\[WARNING\] approvals-waiting: summarize-content run link-held waits for an approval/);
    const linkLines = text!.split('\n').filter((line) => line.startsWith('Decide as '));
    const prefix = `${CONSOLE}/operator/approvals/link?approval=${encodeURIComponent(approvalId)}#link=orcl_`;
    expect(linkLines.length).toBeGreaterThan(0);
    for (const line of linkLines) expect(line).toContain(prefix);
    // The viewer may not decide: no link for it. The admin may.
    expect(text).not.toContain('viewer-bot');
    const adminLine = linkLines.find((line) => line.startsWith('Decide as admin-user '));
    expect(adminLine).toBeDefined();

    // The webhook's first attempt failed with its body echoed back; the retry carried fresh links.
    await waitFor(async () => (hook.bodies.length >= 2 ? true : undefined), 10_000, 'the webhook retry');
    const sent = JSON.parse(hook.bodies[1]!) as { approval: { approvalId: string; pageUrl: string; links: Array<{ actor: string; url: string }> } };
    expect(sent.approval.approvalId).toBe(approvalId);
    expect(sent.approval.pageUrl).toBe(`${CONSOLE}/operator/approvals?approval=${encodeURIComponent(approvalId)}`);
    expect(sent.approval.links.map((l) => l.actor)).toContain('admin-user');

    // The admin's chat link decides as the admin, through the approval link machinery.
    const secret = adminLine!.slice(adminLine!.indexOf('#link=') + '#link='.length);
    const decided = await fetch(`${composed.url}/api/approvals/${encodeURIComponent(approvalId)}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-approval-link': secret },
      body: JSON.stringify({ decision: 'approved' }),
    });
    expect(decided.status).toBe(200);
    const approval = (await api.get('/api/tasks/runs/link-held')).body.approval;
    expect(approval.decisionHistory.map((d: { actor?: string; decidedBy?: string }) => d.actor ?? d.decidedBy)).toContain('admin-user');

    const alerts = await waitFor(async () => {
      const res = await api.get('/api/alerts', TEST_KEYS.viewer);
      const hookDelivery = res.body.alerts?.[0]?.deliveries?.find((d: { sink: string }) => d.sink === 'hook');
      return hookDelivery?.status === 'delivered' ? res : undefined;
    });
    const listed = JSON.stringify(alerts.body);
    expect(listed).not.toContain('orcl_');
    expect(listed).toContain('approvalId');
    const dead = JSON.stringify((await api.get('/api/alerts/dead-letters', TEST_KEYS.viewer)).body);
    expect(dead).not.toContain('orcl_');
    // The failed attempt's echoed body was kept, its secrets replaced (the log line of that failure too).
    const failedLog = logLines.find((line) => line.includes('alert delivery failed'));
    expect(failedLog).toBeDefined();
    expect(failedLog).toContain('[redacted]');
    expect(logLines.join('\n')).not.toContain('orcl_');
    expect(logLines.join('\n')).not.toContain(secret);
  });

  it('with approvalLinks false sends the approve page and no link', async () => {
    const { chat, api } = await serviceAlerting(false, []);
    await api.trigger('summarize-content', { content: 'y', requiresApproval: true, idempotencyKey: 'link-off' });
    const approvalId = (await api.get('/api/tasks/runs/link-off')).body.taskId as string;
    const [text] = await waitFor(async () => (chat.posted.length > 0 ? chat.posted : undefined), 10_000, 'the chat post');
    expect(text).not.toContain('orcl_');
    expect(text).not.toContain('Decide');
    expect(text).toContain('Follow up: /orch approvals');
    expect(approvalId).toBeTruthy();
  });
});
