import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type ServiceProcess } from '../../test/support/service-process.js';
import { TEST_KEYS } from '../../test/support/keys.js';
import { onCleanup } from './cleanup.js';
import { requestJson } from './http.js';
import { assertLoopback } from './loopback.js';
import { serviceBuilt } from './paths.js';
import { dirBytes, rssMiB, waitFor } from './util.js';

export type StoreKind = 'json' | 'sql';
export const STORES: StoreKind[] = ['json', 'sql'];

export const OPERATOR_KEY = TEST_KEYS.operator;
export const VIEWER_KEY = TEST_KEYS.viewer;

export const SKIP_SERVICE_REASON = 'service entry not built (dist/src/main.js)';

/** Limits raised far above any load the suite generates, so the limiter never answers 429. */
const RAISED = { max: 10_000_000, windowSeconds: 60 };

export interface BenchService {
  store: StoreKind;
  url: string;
  pid: number | undefined;
  baseDir: string;
  stateDir: string;
  proc: ServiceProcess;
  /** Stops the service (SIGKILL to its process group) and removes its temp dir. */
  stop(): Promise<void>;
  /**
   * Graceful stop (SIGTERM, SIGKILL after 15 s), then `between` (for example writing into the
   * state), then a new service process on the same base dir and config.
   */
  restart(between?: () => Promise<void>): Promise<BenchService>;
}

export interface LaunchOptions {
  store: StoreKind;
  config?: Record<string, unknown>;
  /** Start-up timeout. */
  timeoutMs?: number;
  /** Extra env for the service process (e.g. the handler execution log's preload). */
  env?: Record<string, string>;
}

export function serviceAvailable(): boolean {
  return serviceBuilt();
}

export function storeLabel(store: StoreKind): string {
  return `service (${store === 'json' ? 'json file' : 'sqlite'})`;
}

/**
 * The config every scenario starts from: a fresh temp base dir, the chosen store, an empty
 * docs folder (doc-sync then has nothing to index), the scheduler off and limits raised.
 */
export function benchConfig(store: StoreKind, baseDir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  for (const dir of ['state', 'docs', 'workspace', 'logs']) mkdirSync(join(baseDir, dir), { recursive: true });
  return {
    stateFile: store === 'json' ? './state/orchestrator-state.json' : 'sql:./state/orchestrator.sqlite',
    workspaceRoot: './workspace',
    docsPath: './docs',
    logsDir: './logs',
    rateLimits: {
      'health-public': RAISED,
      'abuse-guard': RAISED,
      'viewer-read': RAISED,
      'operator-write': RAISED,
    },
    schedulerEnabled: false,
    logLevel: 'warn',
    ...extra,
  };
}

export function makeBaseDir(prefix = 'orch-bench-'): { dir: string; remove: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = onCleanup(`temp dir ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return { dir, remove };
}

/** Starts the built service on an ephemeral loopback port with the bench config. */
export async function launchService(options: LaunchOptions): Promise<BenchService> {
  const base = makeBaseDir();
  const config = benchConfig(options.store, base.dir, options.config);
  try {
    return await startOn(options.store, base, config, options.timeoutMs ?? 60_000, options.env ?? {});
  } catch (err) {
    await base.remove();
    throw err;
  }
}

async function startOn(
  store: StoreKind,
  base: { dir: string; remove: () => Promise<void> },
  config: Record<string, unknown>,
  timeoutMs: number,
  extraEnv: Record<string, string>,
): Promise<BenchService> {
  // Env overrides config: the launcher's default LOG_LEVEL=info would log every request.
  const proc = await startService({
    baseDir: base.dir,
    config,
    env: { LOG_LEVEL: String(config.logLevel ?? 'warn'), ...extraEnv },
    timeoutMs,
  });
  // Keep only the tail of the service's output: under load it can log far more than is useful.
  const trimmer = setInterval(() => {
    if (proc.output.length > 400) proc.output.splice(0, proc.output.length - 200);
  }, 1000);
  trimmer.unref();
  const killService = onCleanup(`service pid ${proc.child.pid}`, async () => {
    clearInterval(trimmer);
    await proc.kill();
  });
  assertLoopback(proc.url);
  const shutdown = async () => {
    const exited = proc.kill('SIGTERM');
    const timer = setTimeout(() => void proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    await killService();
  };
  return {
    store,
    url: proc.url.replace(/\/$/, ''),
    pid: proc.child.pid,
    baseDir: base.dir,
    stateDir: join(base.dir, 'state'),
    proc,
    stop: async () => {
      await killService();
      await base.remove();
    },
    restart: async (between) => {
      await shutdown();
      try {
        await between?.();
        return await startOn(store, base, config, timeoutMs, extraEnv);
      } catch (err) {
        await base.remove();
        throw err;
      }
    },
  };
}

export interface TriggerResponse {
  status?: string;
  runId?: string;
  taskId?: string;
  reason?: string;
  existingStatus?: string;
}

export async function trigger(url: string, type: string, payload: Record<string, unknown>): Promise<{ code: number; body: TriggerResponse }> {
  const res = await requestJson<TriggerResponse>(`${url}/api/tasks/trigger`, {
    method: 'POST',
    key: OPERATOR_KEY,
    body: { type, payload },
  });
  return { code: res.status, body: res.body };
}

export interface RunsPage {
  items: { runId: string; status: string; queueAttempts?: { state: string }[] }[];
  total: number;
}

/** `total` of GET /api/tasks/runs for the given filters (limit=1). */
export async function runsTotal(url: string, query: Record<string, string>): Promise<number> {
  const qs = new URLSearchParams({ ...query, limit: '1' }).toString();
  const res = await requestJson<RunsPage>(`${url}/api/tasks/runs?${qs}`, { key: VIEWER_KEY });
  if (res.status !== 200) throw new Error(`GET /api/tasks/runs?${qs} answered ${res.status}`);
  return res.body.total;
}

export interface RunRecordView {
  runId: string;
  status: string;
  createdAt?: string;
  startedAt?: string | null;
  queueAttempts?: { state: string; attempt?: number }[];
}

export async function getRun(url: string, runId: string): Promise<RunRecordView | null> {
  const res = await requestJson<RunRecordView>(`${url}/api/tasks/runs/${encodeURIComponent(runId)}`, { key: VIEWER_KEY });
  if (res.status === 404) return null;
  if (res.status !== 200) throw new Error(`GET run ${runId} answered ${res.status}`);
  return res.body;
}

export const TERMINAL = new Set(['success', 'failed', 'cancelled']);

/** Runs not yet terminal (pending + running + retrying), as the runs list counts them. */
export async function unfinishedRuns(url: string, type?: string): Promise<number> {
  const base: Record<string, string> = type ? { type } : {};
  const counts = await Promise.all(
    ['pending', 'running', 'retrying'].map((status) => runsTotal(url, { ...base, status })),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** Waits until no run is pending/running/retrying; returns the ms waited, or null on timeout. */
export async function waitDrained(url: string, timeoutMs: number, type?: string): Promise<number | null> {
  const started = Date.now();
  const done = await waitFor(async () => ((await unfinishedRuns(url, type)) === 0 ? true : null), {
    timeoutMs,
    intervalMs: 250,
  });
  return done ? Date.now() - started : null;
}

export function serviceRssMiB(service: BenchService): number | null {
  return rssMiB(service.pid);
}

export function stateBytes(service: BenchService): number {
  return dirBytes(service.stateDir);
}

/** Waits until GET /health answers 200 (the service already logged it listens, so this is quick). */
export async function waitHealthy(url: string, timeoutMs = 10_000): Promise<boolean> {
  const ok = await waitFor(
    async () => {
      try {
        const res = await requestJson(`${url}/health`, { timeoutMs: 2000 });
        return res.status === 200 ? true : null;
      } catch {
        return null;
      }
    },
    { timeoutMs, intervalMs: 50 },
  );
  return ok === true;
}

/** Every run id of `type` the service holds, paged through GET /api/tasks/runs by cursor. */
export async function storedRunIds(url: string, type: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  for (;;) {
    const query: Record<string, string> = { type, limit: '200' };
    if (cursor) query.cursor = cursor;
    const qs = new URLSearchParams(query).toString();
    const res = await requestJson<RunsPage & { nextCursor: string | null }>(`${url}/api/tasks/runs?${qs}`, { key: VIEWER_KEY, timeoutMs: 30_000 });
    if (res.status !== 200) throw new Error(`GET /api/tasks/runs?${qs} answered ${res.status}`);
    for (const item of res.body.items) ids.add(item.runId);
    cursor = res.body.nextCursor;
    if (!cursor || res.body.items.length === 0) return ids;
  }
}
