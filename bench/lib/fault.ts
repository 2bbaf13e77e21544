/**
 * Deliberately broken bench runs, to prove the self-checks catch what they claim to catch.
 * `BENCH_FAULT=drop-one-ack` puts a proxy in front of the service that answers one trigger 202
 * itself without passing it on (an acknowledged run the store never holds);
 * `BENCH_FAULT=ceiling-500` makes the ceilings answer 500 to some triggers;
 * `BENCH_FAULT=flow-step-twice` writes one step of each timed flow into the handler's execution
 * log a second time, as a step run twice would. All live in the bench only: the service itself
 * is never changed.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onCleanup } from './cleanup.js';
import { assertLoopback } from './loopback.js';

export const FAULTS = ['drop-one-ack', 'ceiling-500', 'flow-step-twice'] as const;
export type BenchFault = (typeof FAULTS)[number];

export function benchFault(env: NodeJS.ProcessEnv = process.env): BenchFault | null {
  const value = env.BENCH_FAULT?.trim();
  if (!value) return null;
  if (!(FAULTS as readonly string[]).includes(value)) throw new Error(`BENCH_FAULT must be one of ${FAULTS.join(', ')}; got ${value}`);
  return value as BenchFault;
}

/** Under `ceiling-500`, every how-many-th trigger a ceiling answers 500. */
export const CEILING_500_EVERY = 50;

/**
 * Which trigger the `drop-one-ack` proxy answers itself (a few in, so it falls in the measured
 * load). Warm-up triggers (their keys hold `-warm-`, ExactlyOncePlan.warmup) are passed on and
 * not counted: the fault must reach the checks of the timed phase.
 */
const DROPPED_TRIGGER = 5;
const WARM_UP_KEY = '-warm-';

export interface AckDroppingProxy {
  url: string;
  /** The key answered 202 and never passed on; null until it happened. */
  dropped(): string | null;
  stop(): Promise<void>;
}

/** A pass-through proxy to `target` that acknowledges one trigger without forwarding it. */
export async function startAckDroppingProxy(target: string): Promise<AckDroppingProxy> {
  const upstream = new URL(assertLoopback(target));
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
  let triggers = 0;
  let droppedKey: string | null = null;
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    out.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      if (req.method === 'POST' && req.url === '/api/tasks/trigger' && !text.includes(WARM_UP_KEY) && ++triggers === DROPPED_TRIGGER) {
        const parsed = JSON.parse(text || '{}') as { type?: string; payload?: { idempotencyKey?: string } };
        const key = parsed.payload?.idempotencyKey ?? `dropped-${Date.now()}`;
        droppedKey = key;
        const answer = JSON.stringify({ status: 'queued', taskId: key, runId: key, type: parsed.type ?? null, createdAt: new Date().toISOString() });
        res.writeHead(202, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) });
        res.end(answer);
        return;
      }
      forward(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = onCleanup(`fault proxy :${port}`, async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${port}`, dropped: () => droppedKey, stop };
}
