import { Agent, request } from 'node:http';
import { assertLoopback } from './loopback.js';
import { percentile } from './stats.js';

export interface OpenLoopOptions {
  url: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A fresh body per request (unique keys). */
  body?: () => string;
  /** Arrivals per second, whatever the server's answers do. */
  ratePerSec: number;
  durationSec: number;
  /** Requests still unanswered this long after the last arrival count as timed out. */
  drainMs?: number;
  /** Sees every answer (status, body text); the body is only collected when this is set. */
  onAnswer?: (status: number, body: string) => void;
}

export interface OpenLoopResult {
  ratePerSec: number;
  sent: number;
  ok2xx: number;
  statusCodes: Record<string, number>;
  errors: number;
  timedOut: number;
  /** From each request's scheduled arrival (not its actual send) to its last byte: no coordinated omission. */
  latencyMs: { p50: number; p99: number; p999: number; max: number };
}

/**
 * An open-loop load: requests arrive on a fixed schedule (i / rate seconds after the start)
 * on as many connections as needed, so a slow answer does not hold back the next arrival as it
 * does with a fixed number of connections. Latency is counted from the scheduled arrival.
 */
export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const target = new URL(assertLoopback(options.url));
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const total = Math.max(1, Math.round(options.ratePerSec * options.durationSec));
  const interval = 1000 / options.ratePerSec;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let ok2xx = 0;
  let settled = 0;
  let sent = 0;

  const fire = (scheduled: number) =>
    new Promise<void>((resolve) => {
      const body = options.body?.();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: options.path,
          method: options.method,
          agent,
          headers: { ...options.headers, ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          if (options.onAnswer) res.on('data', (c: Buffer) => chunks.push(c));
          else res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - scheduled);
            options.onAnswer?.(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'));
            const code = String(res.statusCode ?? 0);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            if (code.startsWith('2')) ok2xx++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    }).finally(() => settled++);

  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  while (sent < total) {
    const now = performance.now();
    // Everything due by now goes out in this turn; then wait for the next arrival.
    while (sent < total && start + sent * interval <= now) {
      inFlight.push(fire(start + sent * interval));
      sent++;
    }
    const next = start + sent * interval - performance.now();
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(next, 5))));
  }
  const drained = await Promise.race([
    Promise.all(inFlight).then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), options.drainMs ?? 10_000)),
  ]);
  agent.destroy();
  const timedOut = drained ? 0 : sent - settled;
  return {
    ratePerSec: options.ratePerSec,
    sent,
    ok2xx,
    statusCodes,
    errors,
    timedOut,
    latencyMs: {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      p999: percentile(latencies, 99.9),
      max: latencies.length ? Math.max(...latencies) : Number.NaN,
    },
  };
}
