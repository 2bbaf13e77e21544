import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { readDocChangeBuffer } from '../../src/knowledge/doc-change-buffer.js';
import { createRepairLoop, docSetKey, repairRunId } from '../../src/knowledge/repair-loop.js';
import { createKnowledgeService } from '../../src/knowledge/service.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { fixedClock } from '../support/clocks.js';
import { knowledgeFixture } from '../support/knowledge-workspace.js';

const COOLDOWN_MS = 10 * 60_000;
const stores: StateStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function setup() {
  const fx = knowledgeFixture();
  const clock = fixedClock('2024-05-01T12:00:00.000Z');
  const store = openStateStore(join(fx.base, 'state.json'));
  await store.open();
  stores.push(store);
  const logger = pino({ level: 'silent' });
  const invalidator = { invalidate: async () => undefined };
  const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  const admit = createAdmission({ store, clock, invalidator, onReady: () => undefined, telemetryRetention: 100 });
  const knowledge = createKnowledgeService({
    config: { docsPath: fx.docsPath, workspaceRoot: fx.workspaceRoot, logsDir: fx.logsDir, knowledgePackDir: fx.knowledgePackDir },
    clock,
    logger,
    invalidator,
  });
  const loopFor = (ownerId: string) =>
    createRepairLoop({ store, coordination, clock, logger, invalidator, knowledge, admit, ownerId, logsDir: fx.logsDir, cooldownMs: COOLDOWN_MS });
  return { fx, clock, store, admit, loop: loopFor('instance-a'), loopFor };
}

const paths = (n: number, prefix = 'guides') => Array.from({ length: n }, (_, i) => `${prefix}/doc-${String(i).padStart(2, '0')}.md`);

async function driftRepairRuns(store: StateStore): Promise<RunRecord[]> {
  return (await store.listRuns({ type: 'drift-repair', includeInternal: true, limit: 100 })).items;
}

async function finish(store: StateStore, runId: string, verified: boolean): Promise<RunRecord> {
  const { after } = await store.mutateRun(runId, (run) =>
    run
      ? {
          ...run,
          status: verified ? 'success' : 'failed',
          queueState: null,
          finishedAt: new Date().toISOString(),
          result: verified
            ? { success: true, knowledgePack: { version: 1 }, verification: { verified: true, summary: 'pack v1 verified: 5 doc hashes match' } }
            : { success: false },
          error: verified ? null : 'worker crashed',
        }
      : null,
  );
  return after!;
}

describe('doc-change buffering and drift-repair admission', () => {
  it('admits exactly one repair when 25 paths change concurrently, from two instances', async () => {
    const { fx, store, loop, loopFor } = await setup();
    const other = loopFor('instance-b');
    const outcomes = await Promise.all(paths(25).map((p, i) => (i % 2 === 0 ? loop : other).recordChanges([p])));
    const decisions = outcomes.map((o) => o.decision.decision);
    expect(decisions.filter((d) => d === 'admitted')).toHaveLength(1);
    // Everyone else piles on at once: nobody admits a second repair.
    const more = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? loop : other).considerRepair()));
    expect(more.filter((d) => d.decision === 'admitted')).toEqual([]);

    const runs = await driftRepairRuns(store);
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.payload).toMatchObject({ requestedBy: 'doc-change', paths: paths(25) });
    expect(run.runId).toBe(repairRunId(docSetKey(paths(25)), new Date('2024-05-01T12:00:00.000Z'), COOLDOWN_MS));
    expect(run.repair).toMatchObject({ repairId: run.runId, classification: 'doc-drift', status: 'queued', verificationMode: 'pack-hash-and-source-hashes' });
    expect(await loop.repairs()).toHaveLength(1);
    expect((await readDocChangeBuffer({ logsDir: fx.logsDir })).pending).toEqual([]);
  });

  it('a burst below the threshold admits nothing; a repair in progress holds the next doc set back', async () => {
    const { store, loop } = await setup();
    expect((await loop.recordChanges(paths(24))).decision).toEqual({ decision: 'below-threshold', pending: 24 });
    expect(await driftRepairRuns(store)).toEqual([]);
    expect((await loop.recordChanges(paths(1, 'ops'))).decision.decision).toBe('admitted');
    const next = await loop.recordChanges(paths(30, 'runbooks'));
    expect(next.decision.decision).toBe('repair-active');
    expect(await driftRepairRuns(store)).toHaveLength(1);
    expect((await loop.posture()).status).toBe('repairing');

    // When the repair finishes, the drift that piled up meanwhile gets its own repair.
    const [first] = await driftRepairRuns(store);
    await loop.onRunFinished(await finish(store, first!.runId, true));
    const runs = await driftRepairRuns(store);
    expect(runs).toHaveLength(2);
    expect(runs.find((r) => r.runId !== first!.runId)!.payload.paths).toEqual(paths(30, 'runbooks'));
  });

  it('honours the cooldown of a repaired doc set, then repairs it again once the cooldown is over', async () => {
    const { store, loop, clock } = await setup();
    const first = await loop.recordChanges(paths(25));
    expect(first.decision.decision).toBe('admitted');
    const [run] = await driftRepairRuns(store);
    await loop.onRunFinished(await finish(store, run!.runId, true));

    clock.set('2024-05-01T12:05:00.000Z');
    const again = await loop.recordChanges(paths(25));
    expect(again.decision).toMatchObject({ decision: 'cooldown', until: '2024-05-01T12:10:00.000Z' });
    expect(await driftRepairRuns(store)).toHaveLength(1);

    clock.set('2024-05-01T12:11:00.000Z');
    expect((await loop.considerRepair()).decision).toBe('admitted');
    expect(await driftRepairRuns(store)).toHaveLength(2);
  });

  it('records nothing for a centrally suppressed duplicate', async () => {
    const { store, loop, admit } = await setup();
    // Another instance already admitted the repair of this doc set in this window.
    const runId = repairRunId(docSetKey(paths(25)), new Date('2024-05-01T12:00:00.000Z'), COOLDOWN_MS);
    await admit({ type: 'drift-repair', payload: { paths: paths(25) }, source: 'system', requestedBy: 'elsewhere', forceRunId: runId });
    const outcome = await loop.recordChanges(paths(25));
    expect(outcome.decision).toMatchObject({ decision: 'duplicate-suppressed', runId, reason: 'duplicate-pending' });
    expect(await loop.repairs()).toEqual([]);
    expect(await driftRepairRuns(store)).toHaveLength(1);
    expect((await store.getRun(runId))!.repair).toBeUndefined();
  });

  it('records the verified repair on the run, counts it and emits milestones', async () => {
    const { store, loop } = await setup();
    await loop.recordChanges(paths(25));
    const [run] = await driftRepairRuns(store);
    await loop.onRunFinished(await finish(store, run!.runId, true));

    const stored = (await store.getRun(run!.runId))!;
    expect(stored.repair).toEqual({
      repairId: run!.runId,
      classification: 'doc-drift',
      status: 'verified',
      verificationMode: 'pack-hash-and-source-hashes',
      verificationSummary: 'pack v1 verified: 5 doc hashes match',
    });
    expect(stored.events.map((e) => e.name)).toEqual(expect.arrayContaining(['repair-admitted', 'repair-verified']));
    const { items } = await store.listAppended('milestones', { limit: 10 });
    expect(items.map((m) => [m.kind, m.status])).toEqual([
      ['drift-repair', 'completed'],
      ['drift-repair', 'queued'],
    ]);
    expect(items[0]).toMatchObject({ repairId: run!.runId, runId: run!.runId, packVersion: 1, verified: true });
    expect(await loop.repairStats()).toEqual({ activeCount: 0, verifiedCount: 1, failedCount: 0 });
  });

  it('tracks a failed operator-triggered repair too', async () => {
    const { store, loop, admit } = await setup();
    const outcome = await admit({ type: 'drift-repair', payload: { paths: ['a.md'] }, source: 'api', requestedBy: 'ops' });
    expect(await loop.repairStats()).toEqual({ activeCount: 1, verifiedCount: 0, failedCount: 0 });
    await loop.onRunFinished(await finish(store, outcome.run.runId, false));
    expect((await store.getRun(outcome.run.runId))!.repair).toMatchObject({ classification: 'operator-requested', status: 'failed' });
    expect(await loop.repairStats()).toEqual({ activeCount: 0, verifiedCount: 0, failedCount: 1 });
    const { items } = await store.listAppended('milestones', { limit: 10 });
    expect(items[0]).toMatchObject({ kind: 'drift-repair', status: 'failed' });
  });
});
