import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrchClient, EventStreamParser, OrchApiError, OrchNetworkError, waitAfterRateLimit, type StreamEvent } from '../../src/client/index.js';

let server: Server | null = null;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

const noSleep = async () => undefined;

describe('client flow control', () => {
  it('waits Retry-After seconds, an HTTP date, then ratelimit-reset, with at most 20% jitter', () => {
    const now = Date.parse('2026-11-26T00:00:00Z');
    expect(waitAfterRateLimit(new Headers({ 'retry-after': '3' }), now, () => 0)).toBe(3000);
    expect(waitAfterRateLimit(new Headers({ 'retry-after': '3' }), now, () => 1)).toBe(3600);
    expect(waitAfterRateLimit(new Headers({ 'retry-after': 'Thu, 26 Nov 2026 00:00:05 GMT' }), now, () => 0)).toBe(5000);
    expect(waitAfterRateLimit(new Headers({ 'ratelimit-reset': '7' }), now, () => 0)).toBe(7000);
    expect(waitAfterRateLimit(new Headers({}), now, () => 0, 1234)).toBe(1234);
  });

  it('answers a 429 by waiting and sending again, with the key only in the Authorization header', async () => {
    const seen: Array<{ auth: string | undefined; url: string }> = [];
    const url = await serve((req, res) => {
      seen.push({ auth: req.headers.authorization, url: req.url ?? '' });
      if (seen.length < 3) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":{"code":"rate_limited","message":"slow down","requestId":"r1"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"count":0,"tasks":[]}');
    });
    const waits: number[] = [];
    const client = createOrchClient({ url, apiKey: 'secret-key', sleep: async (ms) => void waits.push(ms), random: () => 0 });
    await expect(client.catalog()).resolves.toEqual({ count: 0, tasks: [] });
    expect(waits).toEqual([1000, 1000]);
    expect(seen.every((s) => s.auth === 'Bearer secret-key' && !s.url.includes('secret'))).toBe(true);
  });

  it('retries an idempotent request after a 503 and a reset connection, never a POST without an idempotency key', async () => {
    let calls = 0;
    const url = await serve((req, res) => {
      calls += 1;
      if (req.method === 'GET' && calls === 1) return void req.socket.destroy();
      if (req.method === 'GET' && calls === 2) return void res.writeHead(503).end();
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"healthy"}');
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"unavailable","message":"database away","requestId":"req-9"}}');
    });
    const client = createOrchClient({ url, apiKey: 'k', sleep: noSleep });
    await expect(client.health()).resolves.toEqual({ status: 'healthy' });
    expect(calls).toBe(3);
    calls = 0;
    const refused = await client.trigger('security-audit', { scope: 'x' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OrchApiError);
    expect(refused).toMatchObject({ status: 503, code: 'unavailable', requestId: 'req-9', message: 'database away' });
    expect(calls).toBe(1);
    calls = 0;
    await client.trigger('security-audit', { scope: 'x', idempotencyKey: 'k1' }).catch(() => undefined);
    expect(calls).toBe(4);
  });

  it('reports an unreachable service as a network error naming the URL', async () => {
    const url = await serve(() => undefined);
    server!.close();
    const client = createOrchClient({ url, apiKey: null, sleep: noSleep, maxRetries: 1 });
    const err = await client.health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrchNetworkError);
    expect(String((err as Error).message)).toContain(url);
  });
});

describe('event streams', () => {
  it('parses events split across chunks, CRLF and CR line ends, comments and multi-line data', () => {
    const events: StreamEvent[] = [];
    const parser = new EventStreamParser((e) => events.push(e));
    for (const chunk of [': keepalive\n\nevent: run\nid: 1', '-1\ndata: {"a":', '1}\r\n\r\nevent: log\r', 'data: one\rdata: two\r\r', 'event: end\ndata: {}\n\n']) parser.push(chunk);
    expect(events).toEqual([
      { event: 'run', id: '1-1', data: '{"a":1}' },
      { event: 'log', id: '1-1', data: 'one\ntwo' },
      { event: 'end', id: '1-1', data: '{}' },
    ]);
  });

  it('resumes a dropped stream with Last-Event-ID and stops at event: end', async () => {
    const events = ['a', 'b', 'c', 'd', 'e'];
    const lastIds: Array<string | undefined> = [];
    const url = await serve((req, res) => {
      const last = req.headers['last-event-id'] as string | undefined;
      lastIds.push(last);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const from = last === undefined ? 0 : events.indexOf(last) + 1;
      // The first connection drops after two events; the second finishes.
      const upTo = lastIds.length === 1 ? 2 : events.length;
      for (const id of events.slice(from, upTo)) {
        res.write(`event: run\nid: ${id}\ndata: ${JSON.stringify({ runId: 'r', status: 'running', name: id })}\n\n`);
      }
      // Dropped once the two events are on the wire.
      if (upTo < events.length) return void setTimeout(() => res.socket?.destroy(), 100);
      res.end('event: end\ndata: {}\n\n');
    });
    const client = createOrchClient({ url, apiKey: 'k' });
    const names: string[] = [];
    await client.followRun('r', { onEvent: (e) => names.push(e.name) }, { sleep: noSleep });
    expect(names).toEqual(events);
    expect(lastIds).toEqual([undefined, 'b']);
  });

  it('gives the service refusal of a stream as an API error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"run nope not found","requestId":"q"}}');
    });
    const err = await createOrchClient({ url, apiKey: 'k' })
      .followRun('nope', { onEvent: () => undefined })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 404, code: 'not_found', requestId: 'q' });
  });
});
