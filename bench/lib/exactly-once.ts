/**
 * The exactly-once workload shared by the service and its queue peers: N unique keys, some
 * duplicates interleaved while the originals are still queued or running, and some sent after
 * every original has completed. Each system must execute each key exactly once.
 */
import type { PeerProcess } from './peer-process.js';
import { runPool, sleep, waitFor } from './util.js';

export interface ExactlyOncePlan {
  tag: string;
  unique: string[];
  /** Submission order during the timed phase: every unique key plus interleaved duplicates. */
  submissions: string[];
  /** Duplicates sent after all unique keys are terminal (not timed). */
  late: string[];
  interleavedDuplicates: number;
  /**
   * Keys run before the timed phase, once each and checked like the rest, so every system is
   * measured warm: its code compiled, its connections open and its statements prepared. A fresh
   * process spends the first thousand or so jobs compiling (a cold service here paid 40% more CPU
   * per run than a warm one), which would make the figure a start-up cost, not a throughput.
   */
  warmup: string[];
}

/** Deterministic pseudo-random numbers so every system gets the same duplicate pattern. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function makePlan(prefix: string, unique: number, duplicates: number, warmup = 0): ExactlyOncePlan {
  const tag = `${prefix}-${process.pid}-${Date.now().toString(36)}`;
  const keys = Array.from({ length: unique }, (_, i) => `${tag}-${i}`);
  const random = prng(unique * 7919 + duplicates);
  const interleaved = Math.ceil(duplicates / 2);
  const late = duplicates - interleaved;
  const submissions: string[] = [];
  // Spread interleaved duplicates evenly: each repeats a key sent shortly before it.
  const every = interleaved > 0 ? Math.max(1, Math.floor(unique / interleaved)) : Number.POSITIVE_INFINITY;
  let sent = 0;
  for (let i = 0; i < keys.length; i++) {
    submissions.push(keys[i]!);
    if ((i + 1) % every === 0 && sent < interleaved) {
      const back = Math.min(i, Math.floor(random() * 20));
      submissions.push(keys[i - back]!);
      sent++;
    }
  }
  while (sent < interleaved && keys.length > 0) {
    submissions.push(keys[Math.floor(random() * keys.length)]!);
    sent++;
  }
  const lateKeys = Array.from({ length: late }, () => keys[Math.floor(random() * keys.length)]!);
  const warm = Array.from({ length: warmup }, (_, i) => `${tag}-warm-${i}`);
  return { tag, unique: keys, submissions, late: lateKeys, interleavedDuplicates: interleaved, warmup: warm };
}

export interface ExactlyOnceResult {
  system: string;
  unique: number;
  duplicatesSubmitted: number;
  /** Keys executed at least once and not failed: the only ones counted as throughput. */
  completed: number;
  failed: number;
  /** Unique keys never executed (or not terminal when the time cap hit). */
  missing: number;
  /** Executions beyond one per key, plus executions of keys never submitted. Must be 0. */
  duplicatesExecuted: number;
  /** Completed keys per second of `durationMs`; failed runs do not count. */
  /** From first submission to every unique key recorded terminal. */
  durationMs: number;
  submitMs: number;
  tasksPerSec: number;
  timedOut: boolean;
  settings: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

/** Turns per-key execution counts into the exactly-once figures (warm-up keys must run once too, but are no throughput). */
export function analyzeCounts(plan: ExactlyOncePlan, counts: Record<string, number>) {
  const expected = new Set(plan.unique);
  const warm = new Set(plan.warmup);
  let completed = 0;
  let duplicatesExecuted = 0;
  for (const [key, n] of Object.entries(counts)) {
    if (warm.has(key)) {
      if (n > 1) duplicatesExecuted += n - 1;
      continue;
    }
    if (!expected.has(key)) {
      duplicatesExecuted += n;
      continue;
    }
    if (n >= 1) completed++;
    if (n > 1) duplicatesExecuted += n - 1;
  }
  return { completed, duplicatesExecuted, missing: plan.unique.length - completed };
}

/** What the exactly-once protocol needs from a queue under test. */
export interface QueueUnderTest {
  /** Enqueues one job for `key`, with the queue's own deduplication. */
  submit(key: string): Promise<unknown>;
  /** Jobs in a terminal state so far. */
  finishedCounts(): Promise<{ completed: number; failed: number }>;
  /** Jobs not yet terminal (queued, retrying or active): the late duplicates are awaited to 0. */
  unfinished(): Promise<number>;
}

/**
 * The protocol every queue peer runs: submit the plan's keys (unique ones with early duplicates
 * mixed in), wait until every unique key is terminal, submit the late duplicates, wait until
 * nothing is queued or active any more (a late duplicate that slipped through has then run),
 * settle, then ask the worker process how often its handler executed each key.
 */
export async function measureExactlyOnce(
  plan: ExactlyOncePlan,
  queue: QueueUnderTest,
  worker: PeerProcess,
  options: { submitConcurrency: number; timeoutMs: number; settleMs: number },
  /** Started with the timed phase and stopped at its end (per-process CPU beside the row). */
  meter?: () => { stop(): Record<string, number | null> },
): Promise<Omit<ExactlyOnceResult, 'system' | 'settings' | 'extra'> & { finalCounts: { completed: number; failed: number }; cpuSec: Record<string, number | null> | null }> {
  const n = plan.unique.length;
  const base = await warmUp(plan, queue, options);
  const running = meter?.() ?? null;
  const t0 = performance.now();
  await runPool(plan.submissions, options.submitConcurrency, queue.submit);
  const submitMs = performance.now() - t0;
  const counts = await waitFor(
    async () => {
      const c = await queue.finishedCounts();
      return c.completed + c.failed - base.completed - base.failed >= n ? c : null;
    },
    { timeoutMs: options.timeoutMs, intervalMs: 20 },
  );
  const durationMs = performance.now() - t0;
  const cpuSec = running?.stop() ?? null;
  await runPool(plan.late, options.submitConcurrency, queue.submit);
  const drained = await waitFor(async () => ((await queue.unfinished()) === 0 ? true : null), { timeoutMs: Math.max(5000, options.settleMs * 10), intervalMs: 50 });
  await sleep(options.settleMs);
  const totals = await queue.finishedCounts();
  const finalCounts = { completed: totals.completed - base.completed, failed: totals.failed - base.failed };
  worker.send({ type: 'report' });
  const report = await worker.next<{ type: string; counts: Record<string, number> }>('report');
  const analysis = analyzeCounts(plan, report.counts);
  // A failed job is no throughput: only keys the handler executed whose job completed count.
  const completed = Math.min(analysis.completed, finalCounts.completed);
  return {
    unique: n,
    duplicatesSubmitted: plan.submissions.length - n + plan.late.length,
    completed,
    failed: finalCounts.failed,
    missing: analysis.missing,
    duplicatesExecuted: analysis.duplicatesExecuted,
    durationMs,
    submitMs,
    tasksPerSec: counts ? completed / (durationMs / 1000) : Number.NaN,
    timedOut: counts === null || drained === null,
    finalCounts,
    cpuSec,
  };
}

/**
 * The plan's warm-up keys submitted and awaited to the end; answers the terminal counts they
 * left, which the timed phase then counts from. A warm-up that does not finish fails the run.
 */
async function warmUp(plan: ExactlyOncePlan, queue: QueueUnderTest, options: { submitConcurrency: number; timeoutMs: number }): Promise<{ completed: number; failed: number }> {
  if (plan.warmup.length === 0) return { completed: 0, failed: 0 };
  await runPool(plan.warmup, options.submitConcurrency, queue.submit);
  const counts = await waitFor(
    async () => {
      const c = await queue.finishedCounts();
      return c.completed + c.failed >= plan.warmup.length ? c : null;
    },
    { timeoutMs: options.timeoutMs, intervalMs: 20 },
  );
  if (counts === null) throw new Error(`warm-up: ${plan.warmup.length} jobs not finished within ${options.timeoutMs} ms`);
  return counts;
}

/** The checks every system's exactly-once result must pass for the scenario to succeed. */
export function exactlyOnceChecks(r: ExactlyOnceResult): { what: string; ok: boolean; detail: string }[] {
  return [
    { what: 'duplicatesExecuted = 0', ok: r.duplicatesExecuted === 0, detail: `${r.duplicatesExecuted} duplicate executions` },
    {
      what: 'completed = N',
      ok: r.completed === r.unique && !r.timedOut,
      detail: `${r.completed}/${r.unique} completed${r.failed ? `, ${r.failed} failed` : ''}${r.missing ? `, ${r.missing} missing` : ''}${r.timedOut ? ', timed out' : ''}`,
    },
  ];
}
