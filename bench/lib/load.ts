import autocannon from 'autocannon';
import { assertLoopback } from './loopback.js';

export interface CacheCounts {
  hit: number;
  miss: number;
  none: number;
}

export interface LoadSummary {
  title: string;
  url: string;
  connections: number;
  /**
   * Wall-clock seconds from the first request to the last response, measured here: autocannon's
   * own `duration` counts whole one-second ticks, which turned 4,000 requests done in 1.1 s into
   * "2,000 req/s".
   */
  durationSec: number;
  /** Completed requests. */
  completed: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Completed requests per second over the whole run. */
  rps: number;
  /** 2xx responses per second over the whole run. */
  okRps: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  statusCodes: Record<string, number>;
  /** Counts of the `X-Svc-Cache` response header, when `countCache` was set. */
  cache?: CacheCounts;
  stoppedEarly: boolean;
}

export interface LoadOptions {
  title: string;
  /** Base URL (loopback only); `path` of each request is appended. */
  url: string;
  connections: number;
  durationSec?: number;
  /** Total requests; when set the run ends after this many (or at `maxMs`). */
  amount?: number;
  /** Hard stop for the run in ms, whatever `amount` says. */
  maxMs?: number;
  method?: 'GET' | 'POST';
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Rebuilds every request (unique keys, varying offsets). Shared by all connections. */
  setup?: (request: { method?: string; path?: string; body?: string | Buffer; headers?: Record<string, string> }) => {
    path?: string;
    body?: string;
  };
  countCache?: boolean;
  /** Sees every response (status, body text). */
  onResponse?: (status: number, body: string) => void;
}

function headerValue(headers: Record<string, unknown>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? String(v[0]) : String(v);
  }
  return null;
}

/** Runs one autocannon load against a loopback URL and condenses the result. */
export async function runLoad(options: LoadOptions): Promise<LoadSummary> {
  assertLoopback(options.url);
  const cache: CacheCounts = { hit: 0, miss: 0, none: 0 };
  const request: autocannon.Request = {
    method: options.method ?? 'GET',
    path: options.path ?? '/',
    headers: { ...(options.headers ?? {}) },
    body: options.body,
  };
  if (options.body !== undefined) request.headers = { 'content-type': 'application/json', ...request.headers };
  if (options.setup) {
    const setup = options.setup;
    request.setupRequest = (req) => {
      const change = setup(req as Parameters<typeof setup>[0]);
      return { ...req, ...change } as autocannon.Request;
    };
  }
  if (options.countCache || options.onResponse) {
    const hook = options.onResponse;
    const countCache = options.countCache === true;
    request.onResponse = (status, body, _context, headers) => {
      if (countCache) {
        const value = headerValue((headers ?? {}) as Record<string, unknown>, 'x-svc-cache');
        if (value === 'hit') cache.hit++;
        else if (value === 'miss') cache.miss++;
        else cache.none++;
      }
      hook?.(status, body);
    };
  }

  const opts: autocannon.Options = {
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    timeout: 30,
    requests: [request],
  };
  if (options.amount !== undefined) opts.amount = options.amount;
  else opts.duration = options.durationSec ?? 5;

  let stoppedEarly = false;
  let startedAt = 0;
  let endedAt = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    startedAt = performance.now();
    const instance = autocannon(opts, (err, res) => {
      endedAt = performance.now();
      if (err) reject(err);
      else resolve(res);
    });
    if (options.maxMs !== undefined) {
      const timer = setTimeout(() => {
        stoppedEarly = true;
        instance.stop();
      }, options.maxMs);
      instance.on('done', () => clearTimeout(timer));
    }
  });

  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  const durationSec = Math.max((endedAt - startedAt) / 1000, 0.001);
  const summary: LoadSummary = {
    title: options.title,
    url: options.url,
    connections: options.connections,
    durationSec,
    completed: result.requests.total,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    rps: result.requests.total / durationSec,
    okRps: result['2xx'] / durationSec,
    latencyMs: {
      mean: result.latency.mean,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      p999: result.latency.p99_9,
      max: result.latency.max,
    },
    statusCodes,
    stoppedEarly,
  };
  if (options.countCache) summary.cache = cache;
  return summary;
}
