import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags, type Admit } from './admission.js';
import { getCatalogEntry } from './catalog.js';
import { executeRun, type ExecutorDeps } from './executor.js';
import { finalizeAttempt } from './finalize.js';
import { isOwnedAttempt, markRunning } from './run-transitions.js';
import type { RunRecord } from './types.js';

export interface RunnerDeps extends ExecutorDeps {
  config: AppConfig;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  admit: Admit;
  /** Identity of this runner in claims (instance id). */
  ownerId: string;
  /** Claim lease; renewed while the run executes so another instance never takes it over. */
  leaseMs: number;
  /** How often to look for claimable runs admitted elsewhere (other instances, due retries). */
  pollIntervalMs: number;
  onRunFinished: (run: RunRecord) => Promise<void>;
}

interface ActiveRun {
  run: RunRecord;
  controller: AbortController;
}

/**
 * Claims ready runs from the store (FIFO, per-type limits enforced by the store) up to the
 * configured concurrency and executes them. Every transition is a guarded compare-and-set on
 * the run record: a runner only finalizes an attempt it still owns.
 */
export class Runner {
  private readonly active = new Map<string, ActiveRun>();
  /** Every launched attempt until its finalization settles (it may outlive its slot). */
  private readonly finishing = new Set<Promise<void>>();
  /** Runs whose claim this runner holds, slot or not: leases are renewed until the final write settles. */
  private readonly leased = new Map<string, RunRecord>();
  private pumping = false;
  private pumpAgain = false;
  private stopping = true;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly deps: RunnerDeps) {}

  get activeCount(): number {
    return this.active.size;
  }

  start(): void {
    this.stopping = false;
    this.timers.push(setInterval(() => this.wake(), this.deps.pollIntervalMs));
    if (!this.deps.store.exclusive) {
      this.timers.push(setInterval(() => void this.renewLeases(), Math.max(1000, Math.floor(this.deps.leaseMs / 3))));
    }
    this.wake();
  }

  /** Asks the runner to claim more work now (called after every admission). */
  wake(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    void this.pump();
  }

  /**
   * Stops claiming, waits up to `graceMs` for running attempts, then aborts the rest. Aborted
   * attempts are left `running` in the store so restart recovery re-admits them.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const deadline = Date.now() + graceMs;
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const { controller } of this.active.values()) controller.abort();
    while (this.active.size > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all([...this.finishing]);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        while (!this.stopping && this.active.size < this.deps.config.concurrency) {
          const free = this.deps.config.concurrency - this.active.size;
          const claimed = await this.claim(free);
          for (const run of claimed) this.launch(run);
          if (claimed.length < free) break;
        }
      } while (this.pumpAgain && !this.stopping);
    } catch (err) {
      this.deps.logger.error({ err }, 'runner failed to claim work');
    } finally {
      this.pumping = false;
    }
  }

  /** Fills up to `max` free slots in one commit when the store can (one durability round, not one per run). */
  private async claim(max: number): Promise<RunRecord[]> {
    const now = this.deps.clock.now();
    const leaseUntil = new Date(now.getTime() + this.deps.leaseMs);
    const options = { typeLimits: this.deps.config.typeConcurrency };
    const mark = (run: RunRecord) => markRunning(run, this.deps.ownerId, leaseUntil, now);
    const { store } = this.deps;
    if (store.claimRuns) return store.claimRuns(options, max, mark);
    const one = await store.claimNextRun(options, mark);
    return one === null ? [] : [one];
  }

  private launch(run: RunRecord): void {
    const controller = new AbortController();
    this.active.set(run.runId, { run, controller });
    this.leased.set(run.runId, run);
    const freeSlot = () => {
      if (!this.active.delete(run.runId)) return;
      this.wake();
    };
    const done = this.execute(run, controller.signal, freeSlot)
      .catch((err: unknown) => this.deps.logger.error({ err, runId: run.runId }, 'run finalization failed'))
      .finally(() => {
        this.finishing.delete(done);
        this.leased.delete(run.runId);
        freeSlot();
      });
    this.finishing.add(done);
  }

  /**
   * The slot is freed once the attempt's outcome is handed to the store, before that write is
   * durable: the next claim is then issued in the same tick and shares its group commit (one
   * durability round for "finish one, start the next" instead of two in a row). The finished
   * run is already out of `running` in what the store counts, so no type limit is exceeded.
   */
  private async execute(run: RunRecord, signal: AbortSignal, freeSlot: () => void): Promise<void> {
    // A claim takes only ready runs, and only pending runs are ready (run-transitions.ts).
    await this.deps.invalidator.invalidate(runWriteTags(run, 'pending'));
    const entry = getCatalogEntry(run.type);
    if (!entry) throw new Error(`run ${run.runId} has unknown type ${run.type}`);
    const outcome = await executeRun(this.deps, entry, run, signal);
    if (signal.aborted && this.stopping) {
      this.deps.logger.warn({ runId: run.runId }, 'run aborted by shutdown; restart recovery will re-admit it');
      return;
    }
    const finalized = finalizeAttempt(this.deps, run, entry.retryable, outcome, (current): current is RunRecord =>
      isOwnedAttempt(current, this.deps.ownerId, run.attempt),
    );
    freeSlot();
    await finalized;
    await outcome.release?.();
  }

  private async renewLeases(): Promise<void> {
    for (const run of [...this.leased.values()]) {
      const leaseUntil = new Date(this.deps.clock.now().getTime() + this.deps.leaseMs).toISOString();
      await this.deps.store
        .mutateRun(run.runId, (current) =>
          isOwnedAttempt(current, this.deps.ownerId, run.attempt) ? { ...current, claim: { ownerId: this.deps.ownerId, leaseUntil } } : null,
        )
        .catch((err: unknown) => this.deps.logger.error({ err, runId: run.runId }, 'lease renewal failed'));
    }
  }
}
