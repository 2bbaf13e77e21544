import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { StateStore } from '../../src/store/types.js';
import { bindHandler, type TaskHandler } from '../../src/runtime/handler-types.js';
import { recoverInterruptedRuns } from '../../src/runtime/recovery.js';
import { Runner, type RunnerDeps } from '../../src/runtime/runner.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { RESULT_FILE_NAME, type WorkerSpawner } from '../../src/workers/spawn-worker.js';
import { renewLeasesRunByRun } from '../../src/store/renew-leases.js';
import { tempDir, testConfig } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

/** A gate the test opens to let one handler call return. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** A handler that counts its start and completes once the gate opens. */
function heldUntil(release: { wait: Promise<void> }, onStart: () => void): TaskHandler<unknown> {
  return async () => {
    onStart();
    await release.wait;
    return { status: 'completed', result: {} };
  };
}

/** A handler that works until its attempt is aborted, then reports (too late) a completion. */
function untilAborted(onAbort: () => void): TaskHandler<unknown> {
  return (_state, _config, input) =>
    new Promise((resolve) => {
      input.signal.addEventListener('abort', () => {
        onAbort();
        resolve({ status: 'completed', result: { late: true } });
      });
    });
}

/** The store seen as a shared one (the runner then renews leases), with some calls replaced. */
function asShared(inner: StateStore, overrides: Partial<StateStore>): StateStore {
  return Object.assign(Object.create(inner) as StateStore, { exclusive: false, ...overrides });
}

/** A store wrapper that records each claim's asked and granted counts in `claims`. */
function countingClaims(claims: Array<{ max: number; got: number }>): (inner: StateStore) => StateStore {
  return (inner) =>
    Object.assign(Object.create(inner) as StateStore, {
      claimRuns: async (...args: Parameters<NonNullable<StateStore['claimRuns']>>) => {
        const got = await inner.claimRuns!(...args);
        claims.push({ max: args[1], got: got.length });
        return got;
      },
    });
}

const runners: Runner[] = [];
const stores: StateStore[] = [];

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop(0);
  for (const store of stores.splice(0)) await store.close();
});

async function setUp(options: {
  concurrency: number;
  handler: TaskHandler<unknown>;
  wrap?: (store: StateStore) => StateStore;
  leaseMs?: number;
  spawner?: WorkerSpawner;
  onRunFinished?: (run: RunRecord) => Promise<void>;
}) {
  const dir = tempDir('runner-');
  const inner = new FileStateStore(join(dir, 'state.json'));
  await inner.open();
  stores.push(inner);
  const store = options.wrap ? options.wrap(inner) : inner;
  const config = { ...testConfig({}, dir), concurrency: options.concurrency, typeConcurrency: {} };
  const deps: RunnerDeps = {
    config,
    store,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    invalidator: { invalidate: async () => {} },
    admit: async () => {
      throw new Error('no follow-ups in these tests');
    },
    ownerId: 'runner-test',
    leaseMs: options.leaseMs ?? 60_000,
    pollIntervalMs: 60_000,
    onRunFinished: options.onRunFinished ?? (async () => {}),
    lanes: testLaneRegistry([{ type: 'doc-sync', handler: bindHandler(options.handler, null) }]),
    spawner: options.spawner ?? ({ run: async () => ({ ok: false, result: null, durationMs: 0, failure: 'spawn-error' }) } as unknown as WorkerSpawner),
  } as RunnerDeps;
  const runner = new Runner(deps);
  runners.push(runner);
  return { store: inner, runner };
}

async function insertReady(store: StateStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const run = makeRun({ runId: `run-${i}`, taskId: `run-${i}` });
    await store.mutateRun(run.runId, insertIfAbsent(run));
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Runner', () => {
  it('fills every free slot with one claim', async () => {
    const release = gate();
    let started = 0;
    const claims: Array<{ max: number; got: number }> = [];
    const { store, runner } = await setUp({
      concurrency: 4,
      handler: heldUntil(release, () => (started += 1)),
      wrap: countingClaims(claims),
    });
    await insertReady(store, 6);
    runner.start();
    await until(() => started === 4, 'four handlers running');
    expect(claims[0]).toEqual({ max: 4, got: 4 });
    release.open();
    await until(async () => (await store.countRuns()).byStatus.success === 6, 'all six runs to succeed');
    expect((await store.getState()).tasksProcessed).toBe(6);
  });

  it('runs hundreds at once with hundreds of slots, each claim asking for at most 64 and leaving the other slots to admissions', async () => {
    const release = gate();
    const firstClaim = gate();
    let running = 0;
    let most = 0;
    const asked: number[] = [];
    const claims: Array<{ max: number; got: number }> = [];
    const { store, runner } = await setUp({
      concurrency: 300,
      handler: async () => {
        running += 1;
        most = Math.max(most, running);
        await release.wait;
        running -= 1;
        return { status: 'completed', result: {} };
      },
      wrap: (inner) =>
        countingClaims(claims)(
          Object.assign(Object.create(inner) as StateStore, {
            claimRuns: async (...args: Parameters<NonNullable<StateStore['claimRuns']>>) => {
              asked.push(args[1]);
              if (asked.length === 1) await firstClaim.wait;
              return inner.claimRuns!(...args);
            },
          }),
        ),
    });
    await insertReady(store, 320);
    try {
      runner.start();
      await until(() => asked.length === 1, 'the first claim');
      // The claim holds 64 slots while it is on its way; an admission meanwhile still gets one.
      expect(asked[0]).toBe(64);
      const slot = runner.reserveSlot('doc-sync');
      expect(slot).not.toBeNull();
      slot!.release();
      firstClaim.open();
      await until(() => running === 300, '300 handlers running');
      // Nothing more starts while all 300 are held.
      await new Promise((r) => setTimeout(r, 50));
      expect(running).toBe(300);
      expect(Math.max(...claims.map((c) => c.max))).toBe(64);
      expect(claims.reduce((n, c) => n + c.got, 0)).toBe(300);
    } finally {
      firstClaim.open();
      release.open();
    }
    await until(async () => (await store.countRuns()).byStatus.success === 320, 'all 320 runs to succeed');
    expect(most).toBe(300);
  });

  it('checks every attempt it runs for a cancel request with one read, not one per attempt', async () => {
    const release = gate();
    let running = 0;
    const reads = { getRun: 0, cancelRequests: [] as number[] };
    const { store, runner } = await setUp({
      concurrency: 40,
      handler: heldUntil(release, () => (running += 1)),
      wrap: (inner) =>
        asShared(inner, {
          getRun: async (runId: string) => {
            reads.getRun += 1;
            return inner.getRun(runId);
          },
          cancelRequests: async (runIds: readonly string[]) => {
            reads.cancelRequests.push(runIds.length);
            return inner.cancelRequests(runIds);
          },
        }),
    });
    await insertReady(store, 40);
    runner.start();
    await until(() => running === 40, '40 handlers running');
    // A shared store's runner checks twice a second.
    await until(() => reads.cancelRequests.some((n) => n === 40), 'a cancel check of all 40 attempts');
    expect(reads.getRun).toBe(0);
    release.open();
    await until(async () => (await store.countRuns()).byStatus.success === 40, 'all 40 runs to succeed');
  });

  it('starts a claim for a slot that frees while another claim is still on its way, never exceeding its slots', async () => {
    const releaseFirst = gate();
    const secondClaim = gate();
    let running = 0;
    let mostRunning = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let claimCalls = 0;
    const { store, runner } = await setUp({
      concurrency: 2,
      handler: async (_state, _config, input) => {
        running += 1;
        mostRunning = Math.max(mostRunning, running);
        if (input.runId === 'run-0') await releaseFirst.wait;
        running -= 1;
        return { status: 'completed', result: {} };
      },
      wrap: (inner) =>
        Object.assign(Object.create(inner) as StateStore, {
          claimRuns: async (...args: Parameters<NonNullable<StateStore['claimRuns']>>) => {
            claimCalls += 1;
            const call = claimCalls;
            inFlight += 1;
            mostInFlight = Math.max(mostInFlight, inFlight);
            try {
              // The second claim is held on its way to the store until the test lets it go.
              if (call === 2) await secondClaim.wait;
              return await inner.claimRuns!(...args);
            } finally {
              inFlight -= 1;
            }
          },
        }),
    });
    await insertReady(store, 1);
    runner.start();
    await until(() => running === 1, 'run-0 running');
    // One slot free: a new run wakes a claim for it, which stays in flight.
    await store.mutateRun('run-1', insertIfAbsent(makeRun({ runId: 'run-1', taskId: 'run-1' })));
    await store.mutateRun('run-2', insertIfAbsent(makeRun({ runId: 'run-2', taskId: 'run-2' })));
    runner.wake();
    await until(() => inFlight === 1 && claimCalls === 2, 'the second claim in flight');
    // run-0 ends: its slot gets a claim of its own at once, beside the one still in flight.
    releaseFirst.open();
    await until(() => claimCalls >= 3, 'a third claim');
    expect(mostInFlight).toBe(2);
    secondClaim.open();
    await until(async () => (await store.countRuns()).byStatus.success === 3, 'all three runs to succeed');
    expect(mostRunning).toBeLessThanOrEqual(2);
  });

  it('claims nothing for a freed slot once a claim found the queue empty, until something wakes it', async () => {
    let claimCalls = 0;
    const { store, runner } = await setUp({
      concurrency: 2,
      handler: async () => ({ status: 'completed', result: {} }),
      wrap: (inner) =>
        Object.assign(Object.create(inner) as StateStore, {
          claimRuns: async (...args: Parameters<NonNullable<StateStore['claimRuns']>>) => {
            claimCalls += 1;
            return inner.claimRuns!(...args);
          },
        }),
    });
    await insertReady(store, 1);
    runner.start();
    await until(async () => (await store.countRuns()).byStatus.success === 1, 'run-0 to succeed');
    await new Promise((r) => setTimeout(r, 50));
    // One claim, which asked for two slots and got one run: the finish freed a slot and claimed nothing.
    expect(claimCalls).toBe(1);
    await store.mutateRun('run-1', insertIfAbsent(makeRun({ runId: 'run-1', taskId: 'run-1' })));
    runner.wake();
    await until(async () => (await store.countRuns()).byStatus.success === 2, 'run-1 to succeed');
    expect(claimCalls).toBe(2);
  });

  it('starts a run admitted while a slot is free in its admission write, and reserves no slot when all are taken', async () => {
    const release = gate();
    let started = 0;
    const { store, runner } = await setUp({
      concurrency: 1,
      handler: heldUntil(release, () => (started += 1)),
    });
    runner.start();
    // The start's claim holds the slot while it is in flight; it finds nothing and lets go.
    await new Promise((r) => setTimeout(r, 50));
    const slot = runner.reserveSlot('doc-sync');
    expect(slot).not.toBeNull();
    const admitted = makeRun({ runId: 'direct', taskId: 'direct', events: [{ seq: 1, at: new Date().toISOString(), kind: 'queue', name: 'admitted' }] });
    const result = await store.mutateRun('direct', (current) => (current ? null : slot!.start(admitted)));
    expect(result.after).toMatchObject({ status: 'running', queueState: null, claim: { ownerId: 'runner-test' } });
    // The admission keeps the status it had; the start carries the run's.
    expect(result.after!.events.map((e) => [e.name, e.status])).toEqual([
      ['admitted', 'pending'],
      ['started', 'running'],
    ]);
    slot!.launch(result.after!);
    await until(() => started === 1, 'the handler');
    // Its one slot is taken: the next admission is queued.
    expect(runner.reserveSlot('doc-sync')).toBeNull();
    release.open();
    await until(async () => (await store.countRuns()).byStatus.success === 1, 'the run to succeed');
    const again = runner.reserveSlot('doc-sync');
    expect(again).not.toBeNull();
    again!.release();
  });

  it('claims the next run before the previous final write is durable, and renews its lease until that write settles', async () => {
    const events: string[] = [];
    const firstFinish = gate();
    let finishes = 0;
    let renewals = 0;
    const { store, runner } = await setUp({
      concurrency: 1,
      leaseMs: 1000,
      handler: async (_state, _config, input) => {
        events.push(`run ${input.runId}`);
        return { status: 'completed', result: {} };
      },
      wrap: (inner) =>
        Object.assign(Object.create(inner) as StateStore, {
          // A runner on a shared store renews leases; the file store itself is exclusive.
          exclusive: false,
          finishRun: async (...args: Parameters<NonNullable<StateStore['finishRun']>>) => {
            // The first final write is held back, as a slow fsync or a slow database would.
            if (finishes++ === 0) await firstFinish.wait;
            const result = await inner.finishRun!(...args);
            events.push(`finished ${args[0]}`);
            return result;
          },
          mutateRun: async (runId: string, mutate: (r: RunRecord | null) => RunRecord | null) => {
            const result = await inner.mutateRun(runId, mutate);
            if (result.changed) renewals += 1;
            return result;
          },
        }),
    });
    await insertReady(store, 2);
    runner.start();
    // With one slot, the second run executes while the first one's final write is still held.
    await until(() => events.includes('run run-1'), 'the second run to execute');
    expect(events).not.toContain('finished run-0');
    // The held run keeps its lease: renewed while its final write is pending.
    await until(() => renewals > 0, 'a lease renewal of the run whose final write is pending');
    const held = await store.getRun('run-0');
    expect(held?.status).toBe('running');
    expect(Date.parse(held!.claim!.leaseUntil)).toBeGreaterThan(Date.now());
    firstFinish.open();
    await until(async () => (await store.countRuns()).byStatus.success === 2, 'both runs to succeed');
    expect(events.slice(0, 2)).toEqual(['run run-0', 'run run-1']);
  });

  /** One run claimed by a runner on a shared store, executing until its attempt is aborted. */
  async function claimedAbortable(overrides: (inner: StateStore) => Partial<StateStore>) {
    const probe = { aborted: false, abortedAt: 0 };
    const { store, runner } = await setUp({
      concurrency: 1,
      leaseMs: 1000,
      handler: untilAborted(() => {
        probe.aborted = true;
        probe.abortedAt = Date.now();
      }),
      wrap: (inner) => asShared(inner, overrides(inner)),
    });
    await insertReady(store, 1);
    runner.start();
    await until(async () => (await store.getRun('run-0'))?.status === 'running', 'the run to be claimed');
    return { store, runner, probe };
  }

  /**
   * Lease renewal through a driver's `renewLeases` (one call for every attempt), emulated over
   * the file store with its own contract: renewed while running under this owner and attempt.
   */
  function batchedRenewals(inner: StateStore, calls: number[] = []): Partial<StateStore> {
    return {
      renewLeases: async (ownerId, attempts, leaseUntil) => {
        calls.push(attempts.length);
        return renewLeasesRunByRun(inner, ownerId, attempts, leaseUntil);
      },
    };
  }

  for (const renewal of ['run by run', 'in one call'] as const) {
    const renewals = (inner: StateStore): Partial<StateStore> => (renewal === 'in one call' ? batchedRenewals(inner) : {});

    it(`stops an attempt whose run another instance took over, and records nothing of it (renewals ${renewal})`, async () => {
      let finishes = 0;
      const { store, runner, probe } = await claimedAbortable((inner) => ({
        ...renewals(inner),
        finishRun: async (...args: Parameters<NonNullable<StateStore['finishRun']>>) => {
          finishes += 1;
          return inner.finishRun!(...args);
        },
      }));
      // Another instance takes the run over, as after an expired lease: a new attempt under its claim.
      await store.mutateRun('run-0', (current) =>
        current ? { ...current, attempt: current.attempt + 1, claim: { ownerId: 'other-instance', leaseUntil: new Date(Date.now() + 60_000).toISOString() } } : null,
      );
      await until(() => probe.aborted, 'the lease renewal to stop the attempt');
      await new Promise((r) => setTimeout(r, 50));
      expect(finishes).toBe(0);
      const run = await store.getRun('run-0');
      expect(run).toMatchObject({ status: 'running', attempt: 2, claim: { ownerId: 'other-instance' } });
      expect((await store.getState()).tasksProcessed).toBe(0);
      expect(runner.activeCount).toBe(0);
    });

    it(`stops an attempt whose lease ran out while renewals failed (renewals ${renewal})`, async () => {
      let failRenewals = false;
      const { store, probe } = await claimedAbortable((inner) => {
        const batched = renewals(inner);
        return {
          mutateRun: async (runId: string, mutate: (r: RunRecord | null) => RunRecord | null) => {
            if (failRenewals) throw new Error('database unreachable');
            return inner.mutateRun(runId, mutate);
          },
          ...(batched.renewLeases
            ? {
                renewLeases: async (...args: Parameters<NonNullable<StateStore['renewLeases']>>) => {
                  if (failRenewals) throw new Error('database unreachable');
                  return batched.renewLeases!(...args);
                },
              }
            : {}),
        };
      });
      failRenewals = true;
      // The last lease written before the cut (a renewal already under way may still extend it).
      const leaseAtCut = Date.parse((await store.getRun('run-0'))!.claim!.leaseUntil);
      await until(() => probe.aborted, 'the attempt to stop once its lease ran out');
      // Not before that lease ran out: until then the run is still this runner's.
      expect(probe.abortedAt).toBeGreaterThanOrEqual(leaseAtCut);
      expect((await store.getRun('run-0'))?.status).toBe('running');
    });
  }

  it('renews the leases of every attempt it holds with one store call, and keeps them running', async () => {
    const release = gate();
    let running = 0;
    const calls: number[] = [];
    let mutations = 0;
    const { store, runner } = await setUp({
      concurrency: 5,
      // Renewed every second (a third of the lease, at least 1 s), each time 3 s ahead.
      leaseMs: 3000,
      handler: heldUntil(release, () => (running += 1)),
      wrap: (inner) =>
        asShared(inner, {
          ...batchedRenewals(inner, calls),
          mutateRun: async (runId: string, mutate: (r: RunRecord | null) => RunRecord | null) => {
            mutations += 1;
            return inner.mutateRun(runId, mutate);
          },
        }),
    });
    await insertReady(store, 5);
    runner.start();
    try {
      await until(() => running === 5, 'five handlers running');
      const renewedBefore = mutations;
      await until(() => calls.length >= 2, 'two renewal rounds');
      expect(calls.slice(0, 2)).toEqual([5, 5]);
      // Nothing renewed through the runner's mutateRun (the batched call wrote them itself).
      expect(mutations).toBe(renewedBefore);
      for (let i = 0; i < 5; i++) expect(Date.parse((await store.getRun(`run-${i}`))!.claim!.leaseUntil)).toBeGreaterThan(Date.now() + 1000);
    } finally {
      release.open();
    }
    await until(async () => (await store.countRuns()).byStatus.success === 5, 'all five runs to succeed');
  });

  it("removes a stopped worker's directory when the lease was lost (the run is finished elsewhere)", async () => {
    const directory = tempDir('runner-worker-dir-');
    writeFileSync(join(directory, 'payload.json'), '{}');
    let aborted = false;
    const spawner = {
      run: (request: { signal?: AbortSignal }) =>
        new Promise((resolve) => {
          request.signal!.addEventListener('abort', () => {
            aborted = true;
            resolve({ ok: false, result: null, durationMs: 5, failure: 'aborted', error: 'aborted', directory });
          });
        }),
    } as unknown as WorkerSpawner;
    const { store, runner } = await setUp({
      concurrency: 1,
      leaseMs: 1000,
      handler: untilAborted(() => undefined),
      wrap: (inner) => asShared(inner, {}),
      spawner,
    });
    const run = makeRun({ runId: 'worker-run', taskId: 'worker-run', type: 'summarize-content' });
    await store.mutateRun(run.runId, insertIfAbsent(run));
    runner.start();
    await until(async () => (await store.getRun('worker-run'))?.status === 'running', 'the worker run to be claimed');
    await store.mutateRun('worker-run', (current) =>
      current ? { ...current, attempt: current.attempt + 1, claim: { ownerId: 'other-instance', leaseUntil: new Date(Date.now() + 60_000).toISOString() } } : null,
    );
    await until(() => aborted, 'the lease renewal to stop the worker');
    await until(() => !existsSync(directory), "the stopped worker's directory to be removed");
    expect(await store.getRun('worker-run')).toMatchObject({ status: 'running', claim: { ownerId: 'other-instance' } });
  });

  it("keeps the directory of a worker stopped because its lease ran out while renewals failed, so recovery finishes it from its durable result instead of running it again", async () => {
    const directory = tempDir('runner-expired-dir-');
    writeFileSync(join(directory, 'payload.json'), '{}');
    let spawns = 0;
    let aborted = false;
    const spawner = {
      run: async (request: { signal?: AbortSignal; onPrepared?: (directory: string) => Promise<void> }) => {
        spawns += 1;
        await request.onPrepared?.(directory);
        return new Promise((resolve) => {
          request.signal!.addEventListener('abort', () => {
            // The worker had made its answer durable when the stop reached it.
            writeFileSync(join(directory, RESULT_FILE_NAME), JSON.stringify({ success: true, summary: 'done once' }));
            aborted = true;
            resolve({ ok: false, result: null, durationMs: 5, failure: 'aborted', error: 'aborted', stopSignal: 'SIGTERM', directory });
          });
        });
      },
    } as unknown as WorkerSpawner;
    let failRenewals = false;
    const { store, runner } = await setUp({
      concurrency: 1,
      leaseMs: 1000,
      handler: untilAborted(() => undefined),
      spawner,
      wrap: (inner) =>
        asShared(inner, {
          renewLeases: async () => {
            if (failRenewals) throw new Error('database unreachable');
            return [];
          },
        }),
    });
    const run = makeRun({ runId: 'expiring-run', taskId: 'expiring-run', type: 'summarize-content' });
    await store.mutateRun(run.runId, insertIfAbsent(run));
    runner.start();
    await until(async () => (await store.getRun('expiring-run'))?.workerDirectory === directory, 'the worker to start');
    failRenewals = true;
    await until(() => aborted, 'the attempt to stop once its lease ran out');
    await until(() => !runner.holds('expiring-run', 1), 'the runner to let the attempt go');
    // Left to lease recovery as it was: still running, its directory and durable result kept.
    expect(existsSync(join(directory, RESULT_FILE_NAME))).toBe(true);
    expect(await store.getRun('expiring-run')).toMatchObject({ status: 'running', attempt: 1 });

    const counts = await recoverInterruptedRuns({
      config: { retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } },
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      invalidator: { invalidate: async () => {} },
      admit: async () => {
        throw new Error('no admissions');
      },
      onRunFinished: async () => {},
      heldHere: (runId, attempt) => runner.holds(runId, attempt),
    });
    expect(counts).toMatchObject({ finished: 1, requeued: 0 });
    expect(await store.getRun('expiring-run')).toMatchObject({ status: 'success', attempt: 1, result: { summary: 'done once' } });
    expect(spawns).toBe(1);
    expect(existsSync(directory)).toBe(false);
  });

  it('is never taken over by lease recovery while it holds the attempt, whatever the lease says', async () => {
    const release = gate();
    const { store, runner } = await setUp({
      concurrency: 1,
      leaseMs: 60_000,
      handler: heldUntil(release, () => undefined),
      wrap: (inner) => asShared(inner, batchedRenewals(inner)),
    });
    await insertReady(store, 1);
    runner.start();
    try {
      await until(() => runner.holds('run-0', 1), 'the run to be claimed');
      // Its lease has run out (renewals failed meanwhile), but the attempt still runs here.
      await store.mutateRun('run-0', (current) => (current ? { ...current, claim: { ownerId: 'runner-test', leaseUntil: new Date(Date.now() - 1000).toISOString() } } : null));
      const deps = {
        config: { retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } },
        store: asShared(store, {}),
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        invalidator: { invalidate: async () => {} },
        admit: async () => {
          throw new Error('no admissions');
        },
        onRunFinished: async () => {},
      };
      expect(runner.holds('run-0', 1)).toBe(true);
      expect(await recoverInterruptedRuns({ ...deps, heldHere: (runId, attempt) => runner.holds(runId, attempt) })).toMatchObject({ requeued: 0, failed: 0, finished: 0 });
      expect(await store.getRun('run-0')).toMatchObject({ status: 'running', attempt: 1 });
      // Another instance's recovery (which does not hold it) takes it over as before.
      expect(await recoverInterruptedRuns({ ...deps, heldHere: () => false })).toMatchObject({ requeued: 1 });
    } finally {
      release.open();
    }
  });

  it("keeps a later attempt's slot and lease when an earlier attempt of the same run settles after it was claimed", async () => {
    const firstSettles = gate();
    let calls = 0;
    const second = untilAborted(() => undefined);
    const { store, runner } = await setUp({
      concurrency: 2,
      leaseMs: 1000,
      handler: async (state, config, input) => (calls++ === 0 ? { status: 'completed', result: {} } : second(state, config, input)),
      wrap: (inner) => asShared(inner, {}),
      // The first attempt's finalization is held after its final write.
      onRunFinished: async (run) => {
        if (run.attempt === 1) await firstSettles.wait;
      },
    });
    await insertReady(store, 1);
    runner.start();
    await until(async () => (await store.getRun('run-0'))?.status === 'success', 'the first attempt to be written');
    // The run is admitted again under attempt 2 (as a retry would be) and claimed by the same runner.
    await store.mutateRun('run-0', (current) => (current ? { ...current, status: 'pending', queueState: 'ready', attempt: 2, claim: null } : null));
    runner.wake();
    await until(() => calls === 2, 'attempt 2 to run');
    expect(runner.activeCount).toBe(1);
    expect(await store.getRun('run-0')).toMatchObject({ attempt: 2, status: 'running' });
    firstSettles.open();
    await new Promise((r) => setTimeout(r, 50));
    // Attempt 1 settling must not free attempt 2's slot or drop its lease.
    expect(runner.activeCount).toBe(1);
    const leaseBefore = Date.parse((await store.getRun('run-0'))!.claim!.leaseUntil);
    await until(async () => Date.parse((await store.getRun('run-0'))!.claim!.leaseUntil) > leaseBefore, "attempt 2's lease to be renewed");
  });
});
