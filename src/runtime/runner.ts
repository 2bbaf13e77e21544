import { UNKEYED } from '../store/fair-claims.js';
import { bucketMatches } from '../store/limit-buckets.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags, type Admit, type SlotReservation } from './admission.js';
import { getCatalogEntry } from './catalog.js';
import { executeRun, type ExecutorDeps } from './executor.js';
import { finalizeAttempt, type FinalizeDeps } from './finalize.js';
import { finalizeCancelledAttempt } from './run-cancel.js';
import { handBack, isOwnedAttempt, markRunning } from './run-transitions.js';
import type { RunRecord } from '../domain/run-record.js';
import { CANCEL_ABORT_REASON } from './worker-port.js';

export interface RunnerDeps extends ExecutorDeps {
  config: Pick<AppConfig, 'concurrency' | 'typeConcurrency' | 'retry'> & Partial<Pick<AppConfig, 'limits'>>;
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
  /** Replaces the service's own secrets in what an attempt leaves (finalize.ts). */
  redact?: FinalizeDeps['redact'];
  /**
   * Why this instance cannot run a claimed run it knows the type of (an operator type's program
   * snapshot it lacks and cannot rebuild: src/operator-types/); null when it can. Such a run is
   * handed back, and this runner skips its type for a while.
   */
  cannotRunHere?: (run: RunRecord) => string | null;
}

/** The first pause of a type whose run was handed back because this instance cannot run it; doubles up to the next. */
const CANNOT_RUN_SKIP_MS = 5_000;
const CANNOT_RUN_SKIP_MAX_MS = 5 * 60_000;

interface ActiveRun {
  run: RunRecord;
  controller: AbortController;
}

/**
 * Why an attempt was stopped before it finished. After a shutdown or a lost lease the attempt is
 * left to whoever owns the run; after a cancel this runner writes the run `cancelled`. A lease is
 * `lease-taken` when a renewal found the run another owner's (or another attempt's), and
 * `lease-expired` when renewals failed until it ran out: then nobody may have taken the run yet,
 * and it is left to lease recovery with its worker's directory, whose durable result (if the
 * worker got that far) finishes the attempt instead of running it again.
 */
type StopReason = 'shutdown' | 'lease-taken' | 'lease-expired' | typeof CANCEL_ABORT_REASON;

/**
 * How often the runner asks the store which of its running attempts have a cancel request: a
 * request arriving at another instance sharing the store reaches the owner within this (plus
 * one read), well inside the 2 s DECISIONS.md allows. A request arriving here stops the attempt
 * at once (Runner.stopCancelled); the check also catches one that came while the run was being claimed.
 */
const CANCEL_CHECK_SHARED_MS = 500;
/** Claims one runner keeps in flight at once (see Runner.fill). */
const CLAIMS_IN_FLIGHT = 2;
/**
 * Most runs one claim asks for. A claim holds every slot it asks for until it returns, and an
 * admission finding no slot queues its run (which wakes claims here and at other instances):
 * with hundreds of slots, a claim for all of them turned most admissions made meanwhile into
 * queued runs and further claims. The slots past this stay free for admissions to start their
 * runs in; a claim that fills its ask is followed by another at once (a backlog drains as fast).
 */
const MAX_RUNS_PER_CLAIM = 64;
const CANCEL_CHECK_EXCLUSIVE_MS = 1000;

const STOP_MESSAGES: Record<Exclude<StopReason, typeof CANCEL_ABORT_REASON>, string> = {
  shutdown: 'run aborted by shutdown; restart recovery will re-admit it',
  'lease-taken': 'run stopped: another instance took its run over',
  'lease-expired': 'run stopped: its lease ran out while the store was unreachable; lease recovery takes it',
};

/** A lease this runner holds: the attempt it covers and how long the last written lease lasts. */
interface HeldLease {
  run: RunRecord;
  until: number;
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
  private readonly leased = new Map<string, HeldLease>();
  /** Claims this runner has in flight, and the slots they were asked to fill (admissions' reservations included). */
  /**
   * Task types this instance claimed a run of but does not know (another instance's reload added
   * them): its claims skip them until its own registry has them. Only this instance's capability,
   * so process memory is the right place; the runs themselves stay in the store, ready.
   */
  private readonly unknownTypes = new Set<string>();
  /** Types this instance handed a run of back because it could not run it (cannotRunHere): skipped until `until`. */
  private readonly pausedTypes = new Map<string, { until: number; delayMs: number }>();
  private claimsInFlight = 0;
  private reservedSlots = 0;
  /** Slots reserved by admissions not yet committed (Runner.reserveSlot). */
  private admissionsInFlight = 0;
  /** Claims that returned: a reservation given back after one may have kept a claim from a ready run. */
  private claimsReturned = 0;
  /**
   * The last claim found fewer ready runs than it asked for and no wake-up came since: nothing
   * is queued that this runner may take, so a freed slot waits for the next wake-up (an
   * admission, another instance's announcement of ready runs, the poll) instead of claiming. On
   * a shared store every claim is a transaction; under light load each finish made one that
   * found nothing. Never set under per-type limits (a claim there can come back short with runs
   * still queued behind a type at its limit, which a freed slot may unblock).
   */
  private queueSeenEmpty = false;
  private fillScheduled = false;
  /** Counts wake-ups: a claim that began before one may have missed the run it announced. */
  private wakes = 0;
  private checkingCancels = false;
  private stopping = true;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Per-type limits or buckets are configured (they change how a short claim is read: see
   * queueSeenEmpty). Read each time: a reload of the operator task types or of the limits may
   * change them.
   */
  private get typeLimited(): boolean {
    return Object.keys(this.deps.config.typeConcurrency).length > 0 || (this.deps.config.limits?.length ?? 0) > 0;
  }

  get activeCount(): number {
    return this.active.size;
  }

  /**
   * Whether this runner still holds `attempt` of the run (executing it, or writing its outcome).
   * Lease recovery on a shared store never takes over such an attempt: its lease may have run out
   * while renewals failed, but this instance is alive and still answers for it (it stops the
   * attempt itself once the lease is gone, then lets recovery have it).
   */
  holds(runId: string, attempt: number): boolean {
    return this.leased.get(runId)?.run.attempt === attempt;
  }

  start(): void {
    this.stopping = false;
    // No run slots (concurrency 0, a shared store only): this instance admits, the others claim
    // and run. Nothing to poll for, no lease or cancel to watch; reserveSlot finds no free slot.
    if (this.deps.config.concurrency === 0) return;
    this.timers.push(setInterval(() => this.wake(), this.deps.pollIntervalMs));
    const cancelCheckMs = this.deps.store.exclusive ? CANCEL_CHECK_EXCLUSIVE_MS : CANCEL_CHECK_SHARED_MS;
    this.timers.push(setInterval(() => void this.checkCancels(), cancelCheckMs));
    if (!this.deps.store.exclusive) {
      this.timers.push(setInterval(() => void this.renewLeases(), Math.max(1000, Math.floor(this.deps.leaseMs / 3))));
    }
    this.wake();
  }

  /** Asks the runner to claim more work now (called after every admission). */
  wake(): void {
    if (this.stopping) return;
    this.wakes++;
    this.queueSeenEmpty = false;
    this.fill();
  }

  /**
   * A slot came free: claim for it unless the queue was seen empty since the last wake-up. The
   * claim waits one turn of the event loop, so slots freed in the same turn share it: one
   * transaction for several runs instead of one each.
   */
  private slotFreed(): void {
    if (this.stopping || this.queueSeenEmpty || this.fillScheduled) return;
    this.fillScheduled = true;
    setImmediate(() => {
      this.fillScheduled = false;
      if (!this.stopping && !this.queueSeenEmpty) this.fill();
    });
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
    // A claim in flight launches what it took: wait for it, so those attempts are counted below.
    while (this.claimsInFlight > 0 || this.admissionsInFlight > 0) await new Promise((r) => setTimeout(r, 10));
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const { controller } of this.active.values()) controller.abort('shutdown' satisfies StopReason);
    while (this.active.size > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all([...this.finishing]);
  }

  /**
   * One claim for the free slots not already promised to a claim in flight (at most
   * MAX_RUNS_PER_CLAIM), with up to CLAIMS_IN_FLIGHT claims at once: a slot that frees while a
   * claim is on its way to the store starts its own claim instead of waiting for that one to
   * return. On a shared store a claim is a transaction with its commit, so one at a time capped
   * an instance at one claim per commit latency whatever its slots. A claim that filled every slot it asked for, or that began before
   * a wake-up, is followed by another; one that found fewer ready runs is not (the next
   * admission, freed slot or poll wakes the runner).
   */
  private fill(): void {
    if (this.stopping || this.claimsInFlight >= CLAIMS_IN_FLIGHT) return;
    const ask = Math.min(MAX_RUNS_PER_CLAIM, this.deps.config.concurrency - this.active.size - this.reservedSlots);
    if (ask <= 0) return;
    const wakesBefore = this.wakes;
    this.reservedSlots += ask;
    this.claimsInFlight++;
    void this.claim(ask)
      .then(
        (claimed) => {
          this.reservedSlots -= ask;
          for (const run of claimed) this.launch(run);
          const again = claimed.length === ask || this.wakes !== wakesBefore;
          if (!again && !this.typeLimited) this.queueSeenEmpty = true;
          return again;
        },
        (err: unknown) => {
          this.reservedSlots -= ask;
          this.deps.logger.error({ err }, 'runner failed to claim work');
          return false;
        },
      )
      .then((again) => {
        this.claimsInFlight--;
        this.claimsReturned++;
        if (again) this.fill();
      });
  }

  /**
   * A free slot for a run being admitted here (see SlotReservation): the admission writes the run
   * already started under this runner's lease and hands it over after its commit, instead of
   * queueing it for a claim. On a shared store a claim is a transaction that selects and rewrites
   * the whole record; this saves it for every run admitted while a slot is free. Null when every
   * slot is running or promised to a claim in flight (the run is queued, and older queued runs
   * keep their turn), while stopping, and for a type under a per-type limit or a run a limit
   * bucket matches (the store counts those across instances when it claims).
   */
  reserveSlot(type: string, concurrencyKey: string | null = null): SlotReservation | null {
    if (this.stopping || Object.hasOwn(this.deps.config.typeConcurrency, type)) return null;
    // A run a limit bucket matches is counted by the store's claim, across instances.
    const run = { type, key: concurrencyKey ?? UNKEYED };
    if ((this.deps.config.limits ?? []).some((bucket) => bucketMatches(bucket, run))) return null;
    if (this.deps.config.concurrency - this.active.size - this.reservedSlots <= 0) return null;
    this.reservedSlots++;
    this.admissionsInFlight++;
    const claimsBefore = this.claimsReturned;
    let open = true;
    const end = (): boolean => {
      if (!open) return false;
      open = false;
      this.reservedSlots--;
      this.admissionsInFlight--;
      return true;
    };
    return {
      start: (run) => {
        const now = this.deps.clock.now();
        // Admitted and started in one write: the store stamps an event without a status with the
        // run's status after the write, so the admission's events keep the `pending` they had.
        const admitted = { ...run, events: run.events.map((event) => (event.status === undefined ? { ...event, status: run.status } : event)) };
        return markRunning(admitted, this.deps.ownerId, new Date(now.getTime() + this.deps.leaseMs), now);
      },
      launch: (run) => {
        if (!end()) return;
        // Stopping meanwhile: the run stays running under this lease, and restart recovery (or
        // another instance, once the lease expires) takes it, as with a claim at shutdown.
        if (!this.stopping) this.launch(run);
      },
      release: () => {
        // The slot is free again; a claim that ran meanwhile asked for one slot fewer.
        if (end() && this.claimsReturned !== claimsBefore) this.slotFreed();
      },
    };
  }

  /** A claimed run of a type this instance does not know goes back to the queue, unchanged, for one that does. */
  private async handBackUnknown(run: RunRecord): Promise<void> {
    this.unknownTypes.add(run.type);
    const detail = `instance ${this.deps.ownerId} does not know task type ${run.type} (not reloaded here); handed back`;
    this.deps.logger.warn({ runId: run.runId, type: run.type }, 'claimed a run of a task type this instance does not know; handed it back');
    await this.handBackRun(run, detail);
  }

  /**
   * A claimed run this instance knows the type of but cannot run (why: `reason`) goes back to the
   * queue for one that can; its type is skipped by this runner's claims for a pause that doubles
   * while it keeps happening, so the run is neither failed nor claimed here in a loop.
   */
  private async handBackCannotRun(run: RunRecord, reason: string): Promise<void> {
    const delayMs = Math.min(CANNOT_RUN_SKIP_MAX_MS, (this.pausedTypes.get(run.type)?.delayMs ?? CANNOT_RUN_SKIP_MS / 2) * 2);
    this.pausedTypes.set(run.type, { until: this.deps.clock.now().getTime() + delayMs, delayMs });
    this.deps.logger.warn({ runId: run.runId, type: run.type, reason }, 'claimed a run this instance cannot run; handed it back');
    await this.handBackRun(run, `instance ${this.deps.ownerId} cannot run it: ${reason}; handed back`);
  }

  private async handBackRun(run: RunRecord, detail: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.mutateRun(run.runId, (current) => (isOwnedAttempt(current, this.deps.ownerId, run.attempt) ? handBack(current, now, detail) : null));
  }

  /** Fills up to `max` free slots in one commit when the store can (one durability round, not one per run). */
  private async claim(max: number): Promise<RunRecord[]> {
    const now = this.deps.clock.now();
    const leaseUntil = new Date(now.getTime() + this.deps.leaseMs);
    // The claim's time is this runner's clock's: priority aging counts to it (src/store/fair-claims.ts).
    for (const type of this.unknownTypes) if (getCatalogEntry(type)) this.unknownTypes.delete(type);
    // A paused type is claimed again once its pause is over (its pause doubles if it happens again).
    const paused = [...this.pausedTypes].filter(([, pause]) => pause.until > now.getTime()).map(([type]) => type);
    const excluded = [...new Set([...this.unknownTypes, ...paused])];
    const options = {
      typeLimits: this.deps.config.typeConcurrency,
      // A copy: a limits reload during the claim's awaits changes the next claim, not this one.
      buckets: [...(this.deps.config.limits ?? [])],
      now,
      ...(excluded.length > 0 ? { excludeTypes: excluded } : {}),
    };
    const mark = (run: RunRecord) => markRunning(run, this.deps.ownerId, leaseUntil, now);
    return this.deps.store.claimRuns(options, max, mark);
  }

  private launch(run: RunRecord): void {
    const controller = new AbortController();
    const active: ActiveRun = { run, controller };
    const lease: HeldLease = { run, until: run.claim ? Date.parse(run.claim.leaseUntil) : Number.POSITIVE_INFINITY };
    this.active.set(run.runId, active);
    this.leased.set(run.runId, lease);
    // Both maps are keyed by run id, and a later attempt of the same run may be claimed here
    // before this one's finalization settles: each attempt removes only its own entries.
    const freeSlot = () => {
      if (this.active.get(run.runId) !== active) return;
      this.active.delete(run.runId);
      this.slotFreed();
    };
    const done = this.execute(run, controller.signal, freeSlot)
      .catch((err: unknown) => this.deps.logger.error({ err, runId: run.runId }, 'run finalization failed'))
      .finally(() => {
        this.finishing.delete(done);
        if (this.leased.get(run.runId) === lease) this.leased.delete(run.runId);
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
    if (!entry) return this.handBackUnknown(run);
    const cannot = this.deps.cannotRunHere?.(run) ?? null;
    if (cannot !== null) return this.handBackCannotRun(run, cannot);
    this.pausedTypes.delete(run.type);
    // Whether the attempt came to its own end before anything stopped it: a stop that arrives
    // later (a lease run out while the final write waits for the store) must not throw away
    // work that is done.
    let endedBeforeStop = false;
    const outcome = await executeRun(this.deps, entry, run, signal).then((settled) => {
      endedBeforeStop = !signal.aborted;
      return settled;
    });
    if (signal.aborted && signal.reason === CANCEL_ABORT_REASON) {
      // Its processes are gone (a worker's whole group) or its handler returned: the run ends
      // cancelled, written only while this attempt is still ours.
      const how = entry.executor === 'handler' ? 'abort' : (outcome.stopSignal ?? null);
      const finalized = finalizeCancelledAttempt(this.deps, run, how, (current): current is RunRecord =>
        isOwnedAttempt(current, this.deps.ownerId, run.attempt),
      );
      freeSlot();
      await finalized;
      await outcome.release?.();
      return;
    }
    if (signal.aborted && !endedBeforeStop) {
      // Neither the outcome nor its side effects are recorded: the run belongs to restart
      // recovery (shutdown), to lease recovery (lease expired) or to the instance that took it
      // over (lease taken).
      const reason = signal.reason as keyof typeof STOP_MESSAGES;
      this.deps.logger.warn({ runId: run.runId, reason }, STOP_MESSAGES[reason]);
      // Shutdown and an expired lease keep the worker's directory: recovery finishes the attempt
      // from the result file in it when the worker made one durable before it was stopped, and
      // removes it otherwise. A taken run is finished elsewhere, in a directory of its own.
      if (reason === 'lease-taken') await outcome.release?.();
      return;
    }
    const finalized = finalizeAttempt(this.deps, run, entry.retryable, outcome, (current): current is RunRecord =>
      isOwnedAttempt(current, this.deps.ownerId, run.attempt),
    );
    freeSlot();
    await finalized;
    await outcome.release?.();
  }

  /**
   * Extends the lease of every attempt this runner holds. An attempt whose run is no longer
   * ours (its lease ran out and another instance took it over), or whose lease has run out
   * without a renewal that stuck (the store unreachable), is stopped at once: its worker is
   * killed and its outcome dropped, so the same run never executes in two places for longer
   * than one renewal interval.
   */
  private async renewLeases(): Promise<void> {
    const held = [...this.leased];
    if (held.length === 0) return;
    const until = this.deps.clock.now().getTime() + this.deps.leaseMs;
    let renewed: Set<string>;
    try {
      const attempts = held.map(([runId, lease]) => ({ runId, attempt: lease.run.attempt }));
      renewed = new Set(await this.deps.store.renewLeases(this.deps.ownerId, attempts, new Date(until).toISOString()));
    } catch (err) {
      this.deps.logger.error({ err }, 'lease renewal failed');
      const now = this.deps.clock.now().getTime();
      for (const [runId, lease] of held) if (now >= lease.until) this.stopLostAttempt(runId, lease.run, 'lease-expired');
      return;
    }
    for (const [runId, lease] of held) {
      if (renewed.has(runId)) lease.until = until;
      // Not renewed: the run is another owner's now, or this attempt has just been finished
      // (its lease entry goes with it; stopping checks the attempt still runs here).
      else this.stopLostAttempt(runId, lease.run, 'lease-taken');
    }
  }

  /**
   * An operator's cancel of a run whose attempt runs here (the fast path: the request came to
   * this instance). True when an attempt was stopped; false when none runs here (it runs on
   * another instance, which notices in checkCancels, or it has just finished).
   */
  stopCancelled(runId: string): boolean {
    const active = this.active.get(runId);
    if (!active || active.controller.signal.aborted) return false;
    this.deps.logger.info({ runId }, 'cancel requested: stopping the attempt');
    active.controller.abort(CANCEL_ABORT_REASON satisfies StopReason);
    return true;
  }

  /**
   * Stops the attempts running here whose cancel was requested (at another instance, or here
   * while the run was being claimed): one read for all of them (StateStore.cancelRequests), so
   * the check costs the same with 1,024 slots as with 2.
   */
  private async checkCancels(): Promise<void> {
    if (this.checkingCancels || this.active.size === 0) return;
    this.checkingCancels = true;
    try {
      const running = [...this.active].filter(([, active]) => !active.controller.signal.aborted).map(([runId]) => runId);
      const requests = await this.deps.store.cancelRequests(running);
      for (const request of requests) {
        const active = this.active.get(request.runId);
        if (active && request.ownerId === this.deps.ownerId && request.attempt === active.run.attempt) this.stopCancelled(request.runId);
      }
    } catch (err) {
      this.deps.logger.error({ err }, 'could not read running attempts for cancel requests');
    } finally {
      this.checkingCancels = false;
    }
  }

  /** Stops the attempt `run` if it still executes here (not a later attempt of the same run). */
  private stopLostAttempt(runId: string, run: RunRecord, reason: 'lease-taken' | 'lease-expired'): void {
    const active = this.active.get(runId);
    if (!active || active.run !== run || active.controller.signal.aborted) return;
    this.deps.logger.warn({ runId, reason }, 'lease lost: stopping the attempt');
    active.controller.abort(reason satisfies StopReason);
  }
}
