import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { assertLoopback } from './loopback.js';

export interface JsonResponse<T> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
}

/**
 * One keep-alive pool for every request the suite sends itself (triggers, polls, seeding).
 * The suite's own client shares the two cores with the system it measures, so it has to be
 * light: `fetch` cost about 1 ms of the bench process's CPU per trigger here (its WHATWG
 * streams, headers and abort plumbing), three times what `node:http` costs, and in the e2e
 * scenario that, not the service, capped the trigger rate. The peers are driven by their own
 * lean clients (ioredis, pg), so the service gets one too. Idle sockets do not keep the
 * process alive (the agent unrefs them).
 */
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** A JSON request to a loopback target with a timeout. The body is parsed when it is JSON. */
export function requestJson<T = unknown>(
  url: string,
  init: { method?: string; key?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<JsonResponse<T>> {
  assertLoopback(url);
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  const headers: Record<string, string | number> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  const timeoutMs = init.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? (payload === undefined ? 'GET' : 'POST'), headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body as T });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`request to ${url} timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}
