import { describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { runListPageTags, runListPruneTags, runListWriteTags, type RunListFilter } from '../../src/domain/cache-invalidation.js';
import { matchesRunQuery, normalizeRunQuery, PRUNABLE_STATUSES } from '../../src/store/run-rules.js';
import { runWriteTags } from '../../src/runtime/admission.js';
import { admitRetry, markFailed, markRunning, markSucceeded, withEvent } from '../../src/runtime/run-transitions.js';
import { RUN_STATUSES, type RunAccounting, type RunRecord } from '../../src/domain/run-record.js';
import { admittedRun } from '../support/runs.js';

/**
 * The runs-list tagging is checked against the listing itself: for every kind of run write and
 * every filter combination the route accepts, the page's answer (all matching runs newest first,
 * and total) is computed before and after the write with the stores' own filter rules. A page
 * whose answer changed must have lost its cache entry (a tag generation moved); a page whose
 * answer did not change must keep it (writes only; pruning is coarser, see its test).
 */

const T0 = new Date('2026-11-23T10:00:00.000Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const ACCOUNTING: RunAccounting = {
  model: null,
  metered: false,
  costUsd: 0,
  note: 'local',
  latencyMs: 12,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  budget: { limitUsd: null, remainingUsd: null },
};
const DONE = { result: { ok: true }, accounting: ACCOUNTING, operatorSummary: null, recommendedNextActions: null, specialistContract: null };

const TYPES = [
  { type: 'doc-sync', internal: false },
  { type: 'lint-sweep', internal: false },
  { type: 'heartbeat', internal: true },
];

let seq = 0;
function run(type: string, internal: boolean, approvalRequired = false): RunRecord {
  seq += 1;
  const record = admittedRun({
    runId: `${type}-${seq}`,
    taskId: `task-${seq}`,
    type,
    internal,
    payload: { n: seq },
    requestedBy: 'operator',
    now: at(seq),
    approvalRequired,
    approvalReason: approvalRequired ? 'payload.requiresApproval is true' : null,
  });
  return { ...record, seq };
}
const running = (r: RunRecord) => markRunning(r, 'owner-a', at(600), at(100));
const retryPlan = { attempt: 1, retryLimit: 3, backoffMs: 1000, nextRetryAt: at(300).toISOString(), lastError: 'flaky' };

/** A store of every type in every status, so each filter combination has something to show. */
function seedRuns(): RunRecord[] {
  return TYPES.flatMap(({ type, internal }) => [
    run(type, internal),
    run(type, internal, true),
    running(run(type, internal)),
    markSucceeded(running(run(type, internal)), at(200), DONE),
    markFailed(running(run(type, internal)), at(200), { error: 'boom', failureReason: 'handler_error', retry: null }),
    markFailed(running(run(type, internal)), at(200), { error: 'flaky', failureReason: 'transient', retry: retryPlan }),
  ]);
}

function everyFilter(): RunListFilter[] {
  const filters: RunListFilter[] = [];
  for (const type of [undefined, ...TYPES.map((t) => t.type), 'no-such-type']) {
    for (const status of [undefined, ...RUN_STATUSES]) {
      for (const includeInternal of [false, true]) filters.push({ type, status, includeInternal });
    }
  }
  return filters;
}

/** The whole answer of a filter, as every page of it (any limit, offset or cursor) derives from it. */
function listing(runs: RunRecord[], filter: RunListFilter): string {
  const query = normalizeRunQuery({ ...filter, status: filter.status as RunRecord['status'] | undefined });
  const items = runs.filter((r) => matchesRunQuery(r, query)).sort((a, b) => b.seq - a.seq);
  return JSON.stringify({ total: items.length, items });
}

interface Write {
  name: string;
  apply(runs: RunRecord[], type: { type: string; internal: boolean }): { runs: RunRecord[]; tags: string[] };
}

/** Replaces the first run of the type in `status` (and held state) with `next(run)`; tags as the writer names them. */
function transition(name: string, from: RunRecord['status'], next: (r: RunRecord) => RunRecord, held = false): Write {
  return {
    name,
    apply(runs, { type }) {
      const i = runs.findIndex((r) => r.type === type && r.status === from && (r.queueState === 'held') === held);
      if (i < 0) throw new Error(`fixture has no ${from} run of ${type}`);
      const before = runs[i]!;
      const after = next(before);
      return { runs: runs.map((r, j) => (j === i ? after : r)), tags: runWriteTags(after, before.status) };
    },
  };
}

const WRITES: Write[] = [
  {
    name: 'admit',
    apply(runs, { type, internal }) {
      const admitted = run(type, internal);
      return { runs: [...runs, admitted], tags: runWriteTags(admitted, null) };
    },
  },
  transition('claim → running', 'pending', running),
  transition('success', 'running', (r) => markSucceeded(r, at(400), DONE)),
  transition('failed', 'running', (r) => markFailed(r, at(400), { error: 'boom', failureReason: 'handler_error', retry: null })),
  transition('retrying', 'running', (r) => markFailed(r, at(400), { error: 'flaky', failureReason: 'transient', retry: retryPlan })),
  transition('retry re-admitted', 'retrying', (r) => admitRetry(r as RunRecord & { retry: typeof retryPlan }, at(400), 'retry')),
  transition('approval held → ready', 'pending', (r) => ({ ...r, queueState: 'ready', approval: { ...r.approval, status: 'approved' } }), true),
  transition('progress while running', 'running', (r) => withEvent(r, at(400), { kind: 'execution', name: 'progress' })),
];

/** Cache generations of a page's tags in a real coordination driver: a moved generation is a new key. */
async function pageGenerations(coordination: MemoryCoordination, filter: RunListFilter): Promise<string> {
  return JSON.stringify(await coordination.tagVersions(runListPageTags(filter)));
}

describe('runs-list cache tags', () => {
  for (const write of WRITES) {
    for (const type of TYPES) {
      it(`${write.name} of a ${type.internal ? 'internal' : 'public'} run drops exactly the pages it changes`, async () => {
        const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1 << 20 });
        const before = seedRuns();
        const filters = everyFilter();
        const keysBefore = await Promise.all(filters.map((f) => pageGenerations(coordination, f)));
        const { runs: after, tags } = write.apply(before, type);
        await coordination.bumpTags(tags);

        const changed: string[] = [];
        const kept: string[] = [];
        for (const [i, filter] of filters.entries()) {
          const answerMoved = listing(before, filter) !== listing(after, filter);
          const keyMoved = (await pageGenerations(coordination, filter)) !== keysBefore[i];
          const label = JSON.stringify(filter);
          // A stale page: its answer changed but its cache key did not.
          if (answerMoved) expect(keyMoved, `stale page ${label}`).toBe(true);
          // A needlessly dropped page: nothing it shows moved, yet its key did.
          else expect(keyMoved, `page dropped without cause ${label}`).toBe(false);
          (answerMoved ? changed : kept).push(label);
        }
        // Each write both changes some pages and leaves others cached.
        expect(changed.length).toBeGreaterThan(0);
        expect(kept.length).toBeGreaterThan(0);
        // The unfiltered page that shows internal runs always changes; another type's pages never do.
        expect(changed).toContain(JSON.stringify({ includeInternal: true }));
        const other = TYPES.find((t) => t.type !== type.type)!.type;
        expect(kept).toContain(JSON.stringify({ type: other, includeInternal: true }));
        await coordination.close();
      });
    }
  }

  it('pruning drops every page that can show a pruned run and keeps the pages of live statuses', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1 << 20 });
    const before = seedRuns();
    const filters = everyFilter();
    const keysBefore = await Promise.all(filters.map((f) => pageGenerations(coordination, f)));
    // The store deletes the oldest finished runs; which types it hits is not reported.
    const prunedId = before.find((r) => r.status === 'success')!.runId;
    const failedId = before.find((r) => r.status === 'failed' && r.internal)!.runId;
    const after = before.filter((r) => r.runId !== prunedId && r.runId !== failedId);
    await coordination.bumpTags(runListPruneTags(PRUNABLE_STATUSES));

    for (const [i, filter] of filters.entries()) {
      const keyMoved = (await pageGenerations(coordination, filter)) !== keysBefore[i];
      const label = JSON.stringify(filter);
      if (listing(before, filter) !== listing(after, filter)) expect(keyMoved, `stale page ${label}`).toBe(true);
      if (filter.status === 'pending' || filter.status === 'running' || filter.status === 'retrying') {
        expect(keyMoved, `live-status page dropped ${label}`).toBe(false);
      }
    }
    await coordination.close();
  });

  it('names a tag per filter combination, so pages of different filters never share an entry generation', () => {
    const tags = new Set(everyFilter().map((f) => runListPageTags(f)[0]));
    expect(tags.size).toBe(everyFilter().length);
  });
});

describe('runListWriteTags memo', () => {
  it('hands out one frozen array per combination, and a distinct one per previous status', () => {
    const write = { type: 'doc-sync', internal: false, status: 'success', previousStatus: 'running' };
    const first = runListWriteTags(write);
    expect(Object.isFrozen(first)).toBe(true);
    // Equal inputs made of fresh strings (as parsed records give) find the same array.
    expect(runListWriteTags(JSON.parse(JSON.stringify(write)) as typeof write)).toBe(first);
    const fromQueued = runListWriteTags({ ...write, previousStatus: 'queued' });
    expect(fromQueued).not.toBe(first);
    expect(fromQueued).toContain('runs-list:public:queued:doc-sync');
    expect(first).not.toContain('runs-list:public:queued:doc-sync');
    // An unchanged status names no previous status, like a new run.
    expect(runListWriteTags({ ...write, previousStatus: 'success' })).toBe(runListWriteTags({ ...write, previousStatus: null }));
  });
});
