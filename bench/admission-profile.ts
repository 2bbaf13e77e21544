/**
 * CPU per durable admission, per embedded store: the figure the admission goals turn on, read
 * without the wall-clock throughput a shared, noisy host distorts. Starts the built service on
 * each embedded store (loopback only), warms it up, then sends `--count` triggers with unique
 * keys from `--clients` concurrent connections and reads the service's CPU time (main thread and
 * whole process, /proc) before and after. The admitted doc-sync runs drain meanwhile, as in the
 * `admission` scenario (the drain after the load is reported on its own), unless `--held` keeps
 * them queued (a limit bucket lets one through a day; each admission still wakes a claim, which
 * the bucket refuses).
 *
 *   npx tsx bench/admission-profile.ts [--count 5000] [--clients 50] [--store json|sql] [--held] [--service-env K=V] [--cpu-prof DIR]
 *
 * `--service-env NAME=VALUE` (repeatable) adds to the service's environment.
 * `--cpu-prof DIR` profiles the service's main thread (bench/lib/cpu-profile-preload.mjs) and
 * stops it gracefully, so the profile of the whole run (warm-up included) lands in DIR.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { requestJson } from './lib/http.js';
import { processCpuMs } from './lib/process-cpu.js';
import { launchService, OPERATOR_KEY, serviceAvailable, SKIP_SERVICE_REASON, storeLabel, STORES, waitDrained, type StoreKind } from './lib/service.js';
import { mainThreadCpuMs } from './lib/util.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '5000' },
    clients: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '1000' },
    store: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'service-env': { type: 'string', multiple: true },
    held: { type: 'boolean', default: false },
  },
});
const PROFILE_PRELOAD = fileURLToPath(new URL('./lib/cpu-profile-preload.mjs', import.meta.url));
/** A whole number from `--name`, within bounds (the driver stays bounded); anything else stops it with the reason. */
function count(name: string, text: string | undefined, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}
const COUNT = count('count', values.count, 1, 100_000);
const CLIENTS = count('clients', values.clients, 1, 256);
const WARMUP = count('warmup', values.warmup, 0, 100_000);
if (values.store !== undefined && !(STORES as string[]).includes(values.store)) {
  console.error(`--store must be one of ${STORES.join(', ')}, got ${JSON.stringify(values.store)}`);
  process.exit(2);
}

/** Sends `count` unique-key triggers from `clients` concurrent loops; resolves with the latencies (ms) of the 202s. */
async function trigger(url: string, tag: string, count: number, clients: number): Promise<number[]> {
  let next = 0;
  const latencies: number[] = [];
  const loop = async () => {
    while (next < count) {
      const key = `${tag}-${next++}`;
      const started = performance.now();
      const res = await requestJson(`${url}/api/tasks/trigger`, { key: OPERATOR_KEY, body: { type: 'doc-sync', payload: { idempotencyKey: key } } });
      if (res.status !== 202) throw new Error(`trigger ${key} answered ${res.status}: ${JSON.stringify(res.body)}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return latencies;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function profileStore(store: StoreKind): Promise<void> {
  const profDir = values['cpu-prof'];
  if (profDir) mkdirSync(profDir, { recursive: true });
  const env: Record<string, string> = profDir ? { NODE_OPTIONS: `--import ${PROFILE_PRELOAD}`, CPU_PROFILE_DIR: profDir } : {};
  for (const pair of values['service-env'] ?? []) env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  // --held: a limit bucket lets one doc-sync run a day through, so the admitted runs stay queued
  // and the figures are the admissions' own (no claim, handler or final write meanwhile).
  const config = values.held ? { limits: { held: { match: { types: ['doc-sync'] }, rate: { max: 1, windowSeconds: 86_400 } } } } : {};
  const drained = (url: string) => (values.held ? Promise.resolve() : waitDrained(url, 120_000, 'doc-sync'));
  const service = await launchService({ store, env, config });
  try {
    await trigger(service.url, 'warm', WARMUP, CLIENTS);
    await drained(service.url);
    const main0 = mainThreadCpuMs(service.pid);
    const all0 = processCpuMs(service.pid);
    const t0 = performance.now();
    const latencies = await trigger(service.url, 'load', COUNT, CLIENTS);
    const wallMs = performance.now() - t0;
    const main1 = mainThreadCpuMs(service.pid);
    const all1 = processCpuMs(service.pid);
    await drained(service.url);
    const main2 = mainThreadCpuMs(service.pid);
    latencies.sort((a, b) => a - b);
    const per = (a: number | null, b: number | null) => (a === null || b === null ? 'n/a' : `${(((b - a) * 1000) / COUNT).toFixed(1)} µs`);
    console.log(
      `${storeLabel(store)}: ${COUNT} x 202 at ${CLIENTS} clients in ${(wallMs / 1000).toFixed(2)} s (${Math.round((COUNT * 1000) / wallMs)} req/s); ` +
        `CPU per 202: main thread ${per(main0, main1)}, whole process ${per(all0, all1)}; ` +
        (values.held ? '' : `main thread per run to drained ${per(main0, main2)}; `) +
        `p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    );
  } finally {
    // A graceful stop lets the preload write its profile on exit.
    if (profDir) await service.proc.kill('SIGTERM');
    await service.stop();
  }
}

if (!serviceAvailable()) {
  console.error(SKIP_SERVICE_REASON);
  process.exit(1);
}
for (const store of values.store ? [values.store as StoreKind] : STORES) await profileStore(store);
process.exit(0);
