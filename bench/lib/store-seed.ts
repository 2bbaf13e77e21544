/**
 * Writes terminal run records straight into a stopped service's state through the service's own
 * store module (`openStateStore` from the compiled dist/src/store/open.js), pruning to the
 * retention as the service would. Used only where driving every run through HTTP would not fit
 * the time budget (the 100,000-run footprint checkpoint); the rows say when it was used.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, watch } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths.js';
import type { StoreKind } from './service.js';
import { percentile } from './stats.js';
import { runPool } from './util.js';

const OPEN_MODULE = join(ROOT, 'dist', 'src', 'store', 'open.js');

type Run = Record<string, unknown> & { runId: string };

/** The part of the StateStore port this module uses. */
interface MinimalStore {
  open(): Promise<void>;
  close(): Promise<void>;
  mutateRun(runId: string, mutate: (current: Run | null) => Run | null): Promise<unknown>;
  listRuns(query: { type?: string; status?: string; limit?: number }): Promise<{ items: Run[]; total: number }>;
  pruneRuns(keep: number): Promise<number>;
}

export function storeModuleAvailable(): boolean {
  return existsSync(OPEN_MODULE);
}

export function stateTarget(store: StoreKind, stateDir: string): string {
  return store === 'json' ? join(stateDir, 'orchestrator-state.json') : `sql:${join(stateDir, 'orchestrator.sqlite')}`;
}

async function openStore(target: string, options: Record<string, unknown> = {}): Promise<MinimalStore> {
  const mod = (await import(pathToFileURL(OPEN_MODULE).href)) as {
    openStateStore?: (target: string, options?: Record<string, unknown>) => MinimalStore;
  };
  if (typeof mod.openStateStore !== 'function') throw new Error(`${OPEN_MODULE} has no openStateStore export`);
  const store = mod.openStateStore(target, options);
  await store.open();
  return store;
}

/**
 * Adds `count` successful doc-sync runs, each a copy of a real one the service recorded (new run
 * id, task id, attempt ids and timestamps), pruning to `retention` after every `retention` writes.
 * The service must be stopped: the store takes its exclusive lock.
 */
export async function writeTerminalRuns(
  store: StoreKind,
  stateDir: string,
  tag: string,
  count: number,
  retention: number,
): Promise<{ written: number; pruned: number; ms: number }> {
  const started = performance.now();
  const db = await openStore(stateTarget(store, stateDir));
  try {
    const template = (await db.listRuns({ type: 'doc-sync', status: 'success', limit: 1 })).items[0];
    if (!template) throw new Error('no successful doc-sync run in the state to copy');
    const make = (runId: string): Run => {
      const now = new Date().toISOString();
      const copy = structuredClone(template);
      const attempts = Array.isArray(copy.queueAttempts) ? (copy.queueAttempts as Record<string, unknown>[]) : [];
      return {
        ...copy,
        runId,
        taskId: randomUUID(),
        payload: { ...((copy.payload as Record<string, unknown> | undefined) ?? {}), idempotencyKey: runId },
        queueAttempts: attempts.map((a) => ({ ...a, attemptId: `${runId}#${String(a.attempt ?? 1)}`, at: now })),
        createdAt: now,
        updatedAt: now,
        startedAt: now,
        finishedAt: now,
      };
    };
    let written = 0;
    let pruned = 0;
    const batch = Math.max(1, retention);
    for (let from = 0; from < count; from += batch) {
      const ids = Array.from({ length: Math.min(batch, count - from) }, (_, i) => `${tag}-${from + i}`);
      await runPool(ids, 256, (runId) => db.mutateRun(runId, (current) => (current === null ? make(runId) : null)));
      written += ids.length;
      pruned += await db.pruneRuns(retention);
    }
    return { written, pruned, ms: performance.now() - started };
  } finally {
    await db.close();
  }
}

export interface WritePauses {
  writes: number;
  /** Snapshot rewrites seen (a `.tmp` created in the state folder). */
  compactions: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * The compaction pause: `writes` new-run inserts, `concurrency` at a time, on a stopped service's
 * state through its own store module, with the journal threshold lowered so compactions happen
 * meanwhile. Each write's latency is kept; the longest ones are the writes that waited for a
 * compaction (the JSON store compacts inside its flush slot).
 */
export async function measureWritePauses(
  store: StoreKind,
  stateDir: string,
  options: { writes: number; concurrency: number; compactAfterEntries: number },
): Promise<WritePauses> {
  let compactions = 0;
  let tmpPresent = false;
  const watcher = watch(stateDir, (_event, name) => {
    if (!name?.endsWith('.tmp')) return;
    const present = existsSync(join(stateDir, name));
    if (present && !tmpPresent) compactions++;
    tmpPresent = present;
  });
  const db = await openStore(stateTarget(store, stateDir), { compactAfterEntries: options.compactAfterEntries });
  try {
    const template = (await db.listRuns({ type: 'doc-sync', status: 'success', limit: 1 })).items[0];
    if (!template) throw new Error('no successful doc-sync run in the state to copy');
    const latencies: number[] = [];
    const tag = `pause-${process.pid}-${Date.now().toString(36)}`;
    await runPool(Array.from({ length: options.writes }, (_, i) => `${tag}-${i}`), options.concurrency, async (runId) => {
      const t0 = performance.now();
      await db.mutateRun(runId, (current) => (current === null ? { ...structuredClone(template), runId, taskId: randomUUID() } : null));
      latencies.push(performance.now() - t0);
    });
    return {
      writes: latencies.length,
      compactions,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
    };
  } finally {
    watcher.close();
    await db.close();
  }
}
