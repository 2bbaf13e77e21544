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
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        while (!this.stopping && this.active.size < this.deps.config.concurrency) {
          const claimed = await this.claim();
          if (!claimed) break;
          this.launch(claimed);
        }
      } while (this.pumpAgain && !this.stopping);
    } catch (err) {
      this.deps.logger.error({ err }, 'runner failed to claim work');
    } finally {
      this.pumping = false;
    }
  }

  private async claim(): Promise<RunRecord | null> {
    const now = this.deps.clock.now();
    const leaseUntil = new Date(now.getTime() + this.deps.leaseMs);
    return this.deps.store.claimNextRun({ typeLimits: this.deps.config.typeConcurrency }, (run) =>
      markRunning(run, this.deps.ownerId, leaseUntil, now),
    );
  }

  private launch(run: RunRecord): void {
    const controller = new AbortController();
    this.active.set(run.runId, { run, controller });
    void this.execute(run, controller.signal)
      .catch((err: unknown) => this.deps.logger.error({ err, runId: run.runId }, 'run finalization failed'))
      .finally(() => {
        this.active.delete(run.runId);
        this.wake();
      });
  }

  private async execute(run: RunRecord, signal: AbortSignal): Promise<void> {
    // A claim takes only ready runs, and only pending runs are ready (run-transitions.ts).
    await this.deps.invalidator.invalidate(runWriteTags(run, 'pending'));
    const entry = getCatalogEntry(run.type);
    if (!entry) throw new Error(`run ${run.runId} has unknown type ${run.type}`);
    const outcome = await executeRun(this.deps, entry, run, signal);
    if (signal.aborted && this.stopping) {
      this.deps.logger.warn({ runId: run.runId }, 'run aborted by shutdown; restart recovery will re-admit it');
      return;
    }
    await finalizeAttempt(this.deps, run, entry.retryable, outcome, (current): current is RunRecord =>
      isOwnedAttempt(current, this.deps.ownerId, run.attempt),
    );
    await outcome.release?.();
  }

  private async renewLeases(): Promise<void> {
    for (const { run } of this.active.values()) {
      const leaseUntil = new Date(this.deps.clock.now().getTime() + this.deps.leaseMs).toISOString();
      await this.deps.store
        .mutateRun(run.runId, (current) =>
          isOwnedAttempt(current, this.deps.ownerId, run.attempt) ? { ...current, claim: { ownerId: this.deps.ownerId, leaseUntil } } : null,
        )
        .catch((err: unknown) => this.deps.logger.error({ err, runId: run.runId }, 'lease renewal failed'));
    }
  }
}
