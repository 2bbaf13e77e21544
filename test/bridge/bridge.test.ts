import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge, createBridgeServer, MAX_REPLY_CHARS, type Bridge } from '../../bridge/index.js';
import { tokenize } from '../../bridge/tokenize.js';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const SECRET = 'bridge-signing-secret-0001';

describe('tokenizing chat text', () => {
  it.each<[string, string[]]>([
    ['run summarize-content content="two words"', ['run', 'summarize-content', 'content=two words']],
    ["approve abc 'looks fine'", ['approve', 'abc', 'looks fine']],
    ['run x title=\u201chello there\u201d', ['run', 'x', 'title=hello there']],
    ['cancel  r1   too\\ slow', ['cancel', 'r1', 'too slow']],
    ['status', ['status']],
  ])('%s', (text, words) => {
    expect(tokenize(text)).toEqual({ words, error: null });
  });

  it('reports an unclosed quote', () => {
    expect(tokenize('run x a="b').error).toBe('a quote is not closed');
  });
});

describe('the /orch bridge against a real service', () => {
  let svc: RuntimeService;
  let bridge: Bridge;
  const logged: Array<Record<string, unknown>> = [];
  let adapter: Server;
  let adapterUrl: string;

  beforeAll(async () => {
    svc = await startRuntimeService();
    bridge = createBridge({
      url: svc.service.url,
      users: { alice: TEST_KEYS.operator, victor: TEST_KEYS.viewer },
      readOnlyKey: TEST_KEYS.viewer,
      log: (entry) => logged.push(entry),
    });
    adapter = createBridgeServer({ bridge, secret: SECRET });
    await new Promise<void>((resolve) => adapter.listen(0, '127.0.0.1', resolve));
    adapterUrl = `http://127.0.0.1:${(adapter.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    adapter?.close();
    await svc?.service.kill();
  });

  const alice = { user: 'alice', channel: 'ops' };

  it('runs a task for a mapped operator and answers with the run id to follow up', async () => {
    const reply = await bridge.handle('/orch run summarize-content content="Bridges carry text." idempotencyKey=bridge-run-1', alice);
    expect(reply).toBe('Queued summarize-content as run bridge-run-1. Follow up: /orch status bridge-run-1');
    await waitForTerminal(svc.api, 'bridge-run-1');
    const status = await bridge.handle('/orch status bridge-run-1', alice);
    expect(status.split('\n')[0]).toBe('Run bridge-run-1 · summarize-content · success');
    const again = await bridge.handle('/orch run summarize-content content=x idempotencyKey=bridge-run-1', alice);
    expect(again).toBe('Already known: run bridge-run-1 is success. Follow up: /orch status bridge-run-1');
  });

  it('answers status, runs and incidents from the companion routes', async () => {
    const status = await bridge.handle('/orch status', alice);
    expect(status).toMatch(/^Posture: (steady|attention|critical)\nQueue: \d+ queued, \d+ running, \d+ retrying, \d+ held\nApprovals waiting: \d+ · Incidents open: \d+/);
    const runs = await bridge.handle('/orch runs', alice);
    expect(runs).toContain('- bridge-run-1 · summarize-content · success');
    const incidents = await bridge.handle('/orch incidents', alice);
    expect(incidents).toMatch(/^(No open incidents|\d+ open)/);
  });

  it('lists approvals and approves or rejects them', async () => {
    const first = await svc.api.trigger('summarize-content', { content: 'hold me', requiresApproval: true, idempotencyKey: 'bridge-held-1' });
    const second = await svc.api.trigger('summarize-content', { content: 'hold me too', requiresApproval: true, idempotencyKey: 'bridge-held-2' });
    const approvals = await bridge.handle('/orch approvals', alice);
    expect(approvals).toContain(`- ${first.body.taskId} · summarize-content`);
    expect(approvals).toContain(`(/orch approve ${second.body.taskId})`);
    const approved = await bridge.handle(`/orch approve ${first.body.taskId} "ship it"`, alice);
    expect(approved).toMatch(new RegExp(`^Approved ${first.body.taskId}\\. It runs as (\\S+): /orch status \\1$`));
    const rejected = await bridge.handle(`/orch reject ${second.body.taskId} not now`, alice);
    expect(rejected).toBe(`Rejected ${second.body.taskId}.`);
    const run = await svc.api.run('bridge-held-2');
    expect(run.body.status).toBe('failed');
  });

  it('gives a user no more than the role of the key it is mapped to, and unmapped users only reads', async () => {
    const viewerRun = await bridge.handle('/orch run summarize-content content=x', { user: 'victor', channel: 'ops' });
    expect(viewerRun).toMatch(/^Refused \(forbidden\): your key may not do this \[request [\w-]+\]$/);
    const strangerRun = await bridge.handle('/orch run summarize-content content=x', { user: 'mallory', channel: 'ops' });
    expect(strangerRun).toBe("You (mallory) are not mapped to a service key that may do this; ask an operator to add you to the bridge's users.");
    const strangerApprove = await bridge.handle('/orch approve anything', { user: 'mallory', channel: 'ops' });
    expect(strangerApprove).toContain('are not mapped');
    const strangerStatus = await bridge.handle('/orch status', { user: 'mallory', channel: 'ops' });
    expect(strangerStatus).toMatch(/^Posture: /);
    const help = await bridge.handle('/orch help', { user: 'mallory', channel: 'ops' });
    expect(help).not.toContain('/orch run <');
    expect(help).toContain('/orch status');
    const closed = createBridge({ url: svc.service.url, users: {} });
    expect(await closed.handle('/orch status', { user: 'mallory', channel: 'x' })).toContain('not mapped');
  });

  it('answers mistakes in one short line and keeps keys out of replies and logs', async () => {
    expect(await bridge.handle('/orch rnu x', alice)).toBe('Unknown command "rnu". Did you mean /orch run? Try /orch help');
    expect(await bridge.handle('/orch approve', alice)).toBe('/orch approve needs <id>. Usage: /orch approve <id> [key=value ...] [note ...]');
    expect(await bridge.handle('/orch run summarize-content a..b=1', alice)).toBe("'a..b' has an empty key segment. Usage: /orch run <task-type> [key=value ...]");
    expect(await bridge.handle('/orch run no-such-type', alice)).toMatch(/^Refused \(invalid_request\): /);
    expect(await bridge.handle('/orch status no-such-run', alice)).toMatch(/^Refused \(not_found\): /);
    // A reply that would carry a key (here: echoed from a run's payload) shows it redacted.
    await bridge.handle(`/orch run summarize-content content="${TEST_KEYS.operator} is a key" idempotencyKey=bridge-echo`, alice);
    await waitForTerminal(svc.api, 'bridge-echo');
    const echo = await bridge.handle('/orch status bridge-echo', alice);
    expect(echo).not.toContain(TEST_KEYS.operator);
    const serialized = JSON.stringify(logged);
    for (const key of Object.values(TEST_KEYS)) expect(serialized).not.toContain(key);
    expect(logged.some((e) => e.user === 'alice' && e.verb === 'run' && e.outcome === 'ok')).toBe(true);
  });

  it('bounds every reply to 1,500 characters', async () => {
    for (let i = 0; i < 12; i++) await svc.api.trigger('summarize-content', { content: 'x'.repeat(50), idempotencyKey: `bridge-many-${i}-${'y'.repeat(60)}` });
    await waitFor(async () => ((await svc.api.get('/api/tasks/runs?limit=20')).body.total >= 14 ? true : undefined));
    const runs = await bridge.handle('/orch runs', alice);
    expect(runs.length).toBeLessThanOrEqual(MAX_REPLY_CHARS);
  });

  describe('over the signed HTTP adapter', () => {
    const post = async (body: string, headers: Record<string, string>) => {
      const res = await fetch(adapterUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      return { status: res.status, body: (await res.json()) as { reply?: string; error?: { code: string; message: string } } };
    };
    const signed = (body: string, at = Math.floor(Date.now() / 1000)) => ({
      'x-orchestrator-timestamp': String(at),
      'x-orchestrator-signature': signAlertDelivery(SECRET, String(at), body),
    });

    it('answers a signed message with the bridge reply', async () => {
      const body = JSON.stringify({ text: '/orch status bridge-run-1', user: 'alice', channel: 'ops' });
      const res = await post(body, signed(body));
      expect(res.status).toBe(200);
      expect(res.body.reply?.split('\n')[0]).toBe('Run bridge-run-1 · summarize-content · success');
    });

    it('refuses a tampered, stale, unsigned or replayed message', async () => {
      const body = JSON.stringify({ text: '/orch run summarize-content content=x', user: 'alice', channel: 'ops' });
      const headers = signed(body);
      const tampered = await post(body.replace('alice', 'mallo'), headers);
      expect(tampered).toEqual({ status: 401, body: { error: { code: 'unauthorized', message: 'signature mismatch' } } });
      const stale = await post(body, signed(body, Math.floor(Date.now() / 1000) - 3600));
      expect(stale.body.error?.message).toBe('signature stale');
      expect((await post(body, {})).body.error?.message).toBe('signature missing');
      expect((await post(body, headers)).status).toBe(200);
      expect((await post(body, headers)).body.error?.message).toBe('signature replayed');
    });
  });
});
