import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge, createBridgeServer, loadBridgeConfig, type Bridge, type ChatContext } from '../../bridge/index.js';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { tempDir } from '../support/config.js';

const SECRET = 'bridge-requests-secret-0001';
const OPERATOR_KEY = 'bridge-operator-key-0001';
const VIEWER_KEY = 'bridge-viewer-key-0001';

function signed(body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return { 'content-type': 'application/json', 'x-orchestrator-timestamp': timestamp, 'x-orchestrator-signature': signAlertDelivery(SECRET, timestamp, body) };
}

/** The signed adapter in front of a bridge that only records what reached it (no service needed). */
describe('the bridge adapter answers every request', () => {
  let server: Server;
  let url: string;
  const handled: Array<{ text: string; context: ChatContext }> = [];
  const notices: Array<{ channel: string; text: string }> = [];
  beforeAll(async () => {
    const bridge: Bridge = {
      handle: async (text, context) => {
        handled.push({ text, context });
        return `handled ${text}`;
      },
      notify: async (notice) => {
        notices.push(notice);
        return true;
      },
      canNotify: true,
    };
    server = createBridgeServer({ bridge, secret: SECRET });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function post(body: string, headers: Record<string, string> = signed(body)) {
    const res = await fetch(url, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as { reply?: string; error?: { code: string; message: string } } };
  }

  it('answers a signed body that is JSON but not an object (null, a list, a number) with 400, running nothing', async () => {
    for (const body of ['null', '[]', '7', '"text"']) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(answer.body.error).toEqual({ code: 'invalid_request', message: 'body must be a JSON object {text, user, channel?}' });
    }
    expect(handled).toEqual([]);
  });

  it('answers a body over the 16 KiB limit with 413, also one sent without a signature', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(64 * 1024), user: 'alice' });
    for (const headers of [signed(body), { 'content-type': 'application/json' }]) {
      const answer = await post(body, headers);
      expect(answer.status).toBe(413);
      expect(answer.body.error?.code).toBe('payload_too_large');
    }
    // The connection stays usable: the next request is answered.
    expect((await post(JSON.stringify({ text: '/orch help', user: 'alice' }))).status).toBe(200);
  });

  it('refuses a signed body nested past the depth bound with 400 naming it, after the signature', async () => {
    const body = `{"text":"/orch help","user":"alice","channel":${'['.repeat(3_000)}${']'.repeat(3_000)}}`;
    expect((await post(body, { 'content-type': 'application/json' })).status).toBe(401);
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toBe('The body nests deeper than 64 levels of arrays and objects');
    // Within 16 KiB a body holds at most about 8,000 values, below the node bound: it passes.
    const wide = JSON.stringify({ text: '/orch help', user: 'alice', channel: 'ops', extra: Array.from({ length: 7_000 }, () => 0) });
    expect((await post(wide)).status).toBe(200);
  });

  it('hands a well-formed message on', async () => {
    const answer = await post(JSON.stringify({ text: '/orch status', user: 'constructor', channel: 'ops' }));
    expect(answer).toEqual({ status: 200, body: { reply: 'handled /orch status' } });
    expect(handled.at(-1)).toEqual({ text: '/orch status', context: { user: 'constructor', channel: 'ops' } });
  });

  it('posts a signed alert notice on /notify once per delivery, and refuses unsigned or malformed ones', async () => {
    const notify = async (body: string, headers: Record<string, string> = signed(body)) => {
      const res = await fetch(`${url}notify`, { method: 'POST', headers, body });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const notice = { deliveryId: 'd-1', channel: 'ops-alerts', text: '[WARNING] runs-failing: summarize-content failed' };
    expect(await notify(JSON.stringify(notice), { 'content-type': 'application/json' })).toMatchObject({ status: 401 });
    expect(await notify(JSON.stringify(notice))).toEqual({ status: 200, body: { posted: true } });
    // The service's retry of the same delivery (a new signature) is answered, not posted again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await notify(JSON.stringify({ ...notice, retry: 1 }))).toEqual({ status: 200, body: { posted: true, duplicate: true } });
    expect(notices).toEqual([{ channel: 'ops-alerts', text: notice.text }]);
    expect(await notify(JSON.stringify({ deliveryId: 'd-2', text: 'no channel' }))).toMatchObject({ status: 400 });
    expect(handled.some((h) => h.text === notice.text)).toBe(false);
  });
});

describe('a bridge with no chat to post to', () => {
  it('answers /notify with 503 and posts nothing', async () => {
    const server = createBridgeServer({ bridge: createBridge({ url: 'http://127.0.0.1:9', users: {} }), secret: SECRET });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const body = JSON.stringify({ deliveryId: 'd-1', channel: 'ops', text: 'hello' });
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`, { method: 'POST', headers: signed(body), body });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('chat user names are looked up as data, never through the prototype', () => {
  /** A bridge whose service calls are recorded (the key each used), answering a minimal overview. */
  function recordingBridge(users: Record<string, string>) {
    const keysUsed: string[] = [];
    const fetchStub: typeof fetch = async (_input, init) => {
      keysUsed.push(String(new Headers(init?.headers).get('authorization')));
      const overview = { posture: 'steady', queue: { queued: 0, processing: 0, held: 0, retrying: 0 }, approvals: { pendingCount: 0 }, incidents: { openCount: 0, criticalCount: 0 }, nextActions: [] };
      return new Response(JSON.stringify(overview), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const bridge = createBridge({ url: 'http://127.0.0.1:9', users, readOnlyKey: VIEWER_KEY, fetch: fetchStub });
    return { bridge, keysUsed };
  }

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('%s is an unmapped user: read-only answers with the viewer key, no writes', async (user) => {
    const { bridge, keysUsed } = recordingBridge({ alice: OPERATOR_KEY });
    const refused = await bridge.handle('/orch run summarize-content content=x', { user, channel: 'ops' });
    expect(refused).toBe(`You (${user}) are not mapped to a service key that may do this; ask an operator to add you to the bridge's users.`);
    expect(keysUsed).toEqual([]);
    expect(await bridge.handle('/orch status', { user, channel: 'ops' })).toMatch(/^Posture: steady/);
    expect(keysUsed).toEqual([`Bearer ${VIEWER_KEY}`]);
  });

  it('maps a user named __proto__ or constructor when the config names it, to its own key', async () => {
    const dir = tempDir('bridge-config-');
    const path = join(dir, 'bridge.json');
    writeFileSync(path, '{"url":"http://127.0.0.1:9","users":{"__proto__":{"keyEnv":"KEY_PROTO"},"constructor":{"keyEnv":"KEY_CTOR"}}}');
    const config = loadBridgeConfig(path, { KEY_PROTO: 'key-of-proto-user-01', KEY_CTOR: 'key-of-ctor-user-001' });
    expect(Object.entries(config.options.users)).toEqual([
      ['__proto__', 'key-of-proto-user-01'],
      ['constructor', 'key-of-ctor-user-001'],
    ]);
    const { bridge, keysUsed } = recordingBridge(config.options.users);
    await bridge.handle('/orch status', { user: '__proto__', channel: 'ops' });
    await bridge.handle('/orch status', { user: 'constructor', channel: 'ops' });
    expect(keysUsed).toEqual(['Bearer key-of-proto-user-01', 'Bearer key-of-ctor-user-001']);
  });

  it('reads a key only from a variable that is set, never from a property every object has', () => {
    const dir = tempDir('bridge-config-');
    const path = join(dir, 'bridge.json');
    writeFileSync(path, '{"url":"http://127.0.0.1:9","users":{"alice":{"keyEnv":"constructor"}}}');
    expect(() => loadBridgeConfig(path, {})).toThrow('users.alice.keyEnv names no set environment variable');
    writeFileSync(path, '{"url":"http://127.0.0.1:9","users":{},"readOnlyKeyEnv":"toString"}');
    expect(() => loadBridgeConfig(path, {})).toThrow('readOnlyKeyEnv toString is not set');
  });
});
