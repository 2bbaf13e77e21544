import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../bench/lib/http.js';

/** The bench's own client: the service's triggers and polls go through it. */
describe('bench requestJson', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; auth?: string; type?: string; body: string; socketPort?: number }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body, socketPort: req.socket.remotePort });
        if (req.url === '/slow') return; // never answers
        if (req.url === '/text') {
          res.writeHead(500, { 'content-type': 'text/plain' });
          return res.end('not json');
        }
        res.writeHead(202, { 'content-type': 'application/json', 'x-probe': 'yes' });
        res.end(JSON.stringify({ echoed: body ? JSON.parse(body) : null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the body as JSON with the bearer key and parses the JSON answer', async () => {
    const res = await requestJson<{ echoed: unknown }>(`${base}/x`, { key: 'k-1', body: { a: [1, 'é'] } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ echoed: { a: [1, 'é'] } });
    expect(res.headers['x-probe']).toBe('yes');
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', auth: 'Bearer k-1', type: 'application/json' });
  });

  it('sends a GET without a body and keeps a non-JSON answer as text', async () => {
    const res = await requestJson(`${base}/text`);
    expect(res.status).toBe(500);
    expect(res.body).toBe('not json');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', body: '' });
  });

  it('reuses its connections (keep-alive) for requests in a row', async () => {
    seen.length = 0;
    for (let i = 0; i < 5; i++) await requestJson(`${base}/x`);
    expect(new Set(seen.map((s) => s.socketPort)).size).toBe(1);
  });

  it('rejects after its timeout when no answer comes', async () => {
    await expect(requestJson(`${base}/slow`, { timeoutMs: 200 })).rejects.toThrow(/timed out after 200 ms/);
  });

  it('refuses a target outside loopback before sending anything', async () => {
    const before = seen.length;
    await expect(async () => requestJson('http://192.0.2.1:9/x')).rejects.toThrow();
    expect(seen.length).toBe(before);
  });
});
