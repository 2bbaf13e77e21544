import type { StoreKind } from './service.js';

/**
 * Sizes of every scenario per mode. Quick runs everything small (capped at fifteen minutes), full
 * at size (capped at thirty). Every compared pair runs in at least three alternated rounds in
 * both modes: its goal is judged on their median (bench/lib/verdict.ts). Every load is bounded by a
 * count and by its scenario's time budget.
 */
export interface Settings {
  /** Whole-run budget in seconds; each scenario is also capped by `budgetSec`. */
  totalBudgetSec: number;
  /** Service run concurrency (config `concurrency`) and the queue peers' worker concurrency. */
  concurrency: number;
  /**
   * `openLoopRate` arrivals/s for `openLoopSec`: the open-loop latency rows. `saturation`: the
   * sweep from that rate (x`factor` per `stepSec` step, at most `maxSteps` steps and `maxSec` per
   * target); a step passes when every arrival is answered 2xx with p99 <= `p99BoundMs`.
   * `noopCeiling`: sweep the no-op ceiling too (the durable ceiling is always swept).
   * The closed-loop load runs in `rounds` turns of `durationSec / rounds` per subject, the
   * ceilings and the service alternating (A/B/A/B); each subject's best turn is reported.
   */
  admission: {
    budgetSec: number;
    connections: number;
    durationSec: number;
    rounds: number;
    warmupSec: number;
    openLoopRate: number;
    openLoopSec: number;
    saturation: { factor: number; stepSec: number; maxSteps: number; maxSec: number; p99BoundMs: number; drainMs: number; noopCeiling: boolean };
  };
  /**
   * GET /health: per store, `warmupSec` for each subject, then `durationSec` per subject split into
   * `rounds` turns of the ceiling and the service.
   */
  health: { budgetSec: number; connections: number; durationSec: number; warmupSec: number; rounds: number; stores: StoreKind[] };
  /**
   * `concurrency`: run slots of the service and worker concurrency of BullMQ in this scenario,
   * each at its best. Of 4 / 16 / 32 / 64, 32 gave the highest rate for the service (both stores)
   * and for BullMQ (both Redis modes) alike; pg-boss has its own tuning (workers x batch).
   */
  e2e: {
    budgetSec: number;
    /** Every system runs the plan once per round, in turns (A/B/A/B); the best passing round is reported. */
    rounds: number;
    unique: number;
    duplicates: number;
    submitConcurrency: number;
    settleMs: number;
    /** pg-boss swept over workers x batch size in the first round; later rounds use the best point. */
    pgBossBatchSizes: number[];
    pgBossWorkers: number[];
    concurrency: number;
  };
  /** `throughputRuns`: runs for the throughput rows, `concurrency` at a time. */
  /** `runs` per turn; `rounds` turns of each side, alternating (bare spawns, service). */
  spawn: { budgetSec: number; runs: number; rounds: number; warmup: number; throughputRuns: number };
  reads: {
    budgetSec: number;
    runs: number;
    /** Service run concurrency while seeding (raised so the seeded runs drain sooner). */
    serviceConcurrency: number;
    stores: StoreKind[];
    connections: number;
    durationSec: number;
    detailAmount: number;
  };
  footprint: { budgetSec: number; checkpoints: number[]; retention: number; stores: StoreKind[]; connections: number };
  /**
   * PostgreSQL store against pg-boss and the PostgreSQL admission ceiling: `unique` keys plus
   * `duplicates`; pg-boss swept over `pgBossWorkers` x `pgBossBatchSizes`; admission at
   * `connections` in `rounds` turns of `admissionSec` alternating ceiling and service.
   */
  postgres: {
    budgetSec: number;
    unique: number;
    duplicates: number;
    /** Jobs each process (pg-boss's worker, every service instance) runs before its timed phase (ExactlyOncePlan.warmup). */
    warmup: number;
    pgBossWorkers: number[];
    pgBossBatchSizes: number[];
    admissionSec: number;
    connections: number;
    rounds: number;
  };
  /** `largeState`: runs written before the restart-time rows. */
  startup: { budgetSec: number; reps: number; largeState: number };
  /** `runs`: cancels of each kind of worker (one that honours SIGTERM, one that ignores it). */
  cancel: { budgetSec: number; runs: number };
  /**
   * Live events: `subscribers` on /api/events while doc-sync runs arrive at `runsPerSec` for
   * `durationSec`; then `admissionSec` of closed-loop admission at `connections`, without and
   * with the subscribers.
   */
  fanout: { budgetSec: number; subscribers: number; runsPerSec: number; durationSec: number; admissionSec: number; connections: number };
  /** Admission with tracing off and on, a fresh service per turn, `rounds` turns each (off, on, off, on, ...). */
  tracing: { budgetSec: number; rounds: number; durationSec: number };
  /**
   * A fan-out/fan-in flow of `fanOutSteps` steps and a `width` x `depth` grid, each against the
   * same work as independent runs (triggered `submitConcurrency` at a time), the fan-out also
   * against BullMQ flows, in `rounds` alternated rounds. `concurrency`: the service's run slots
   * and the BullMQ worker's concurrency alike (the e2e scenario's, for the same no-op work).
   */
  flows: { budgetSec: number; fanOutSteps: number; width: number; depth: number; rounds: number; concurrency: number; submitConcurrency: number };
  /**
   * Fair queues (bench/scenarios/fairness.ts). Fairness: `floodRuns` queued on one key, then
   * `lightRuns` of a light key at `lightPerSec`, each run's handler `fairnessDelayMs` longer, on
   * `concurrency` run slots, `fairnessRounds` alternated rounds of each side. Caps: `capKeys` keys x `capRunsPerKey` runs over three instances
   * (`concurrency` slots each), each run `capDelayMs`. Overhead: `overheadRuns` runs on
   * `overheadConcurrency` slots, `overheadRounds` alternated rounds of each side.
   */
  fairness: {
    budgetSec: number;
    concurrency: number;
    floodRuns: number;
    lightRuns: number;
    lightPerSec: number;
    fairnessDelayMs: number;
    fairnessRounds: number;
    capKeys: number;
    capRunsPerKey: number;
    capDelayMs: number;
    overheadRuns: number;
    overheadConcurrency: number;
    overheadRounds: number;
  };
}

export const QUICK: Settings = {
  totalBudgetSec: 900,
  concurrency: 4,
  admission: {
    budgetSec: 100,
    connections: 50,
    durationSec: 4.5,
    rounds: 3,
    warmupSec: 1,
    openLoopRate: 300,
    openLoopSec: 3,
    saturation: { factor: 1.5, stepSec: 1, maxSteps: 8, maxSec: 10, p99BoundMs: 100, drainMs: 1000, noopCeiling: false },
  },
  health: { budgetSec: 25, connections: 50, durationSec: 3, warmupSec: 0.5, rounds: 3, stores: ['json'] },
  e2e: { budgetSec: 160, rounds: 3, unique: 300, duplicates: 30, submitConcurrency: 50, settleMs: 1200, pgBossBatchSizes: [50, 200], pgBossWorkers: [8, 32], concurrency: 32 },
  spawn: { budgetSec: 50, runs: 3, rounds: 3, warmup: 1, throughputRuns: 12 },
  reads: { budgetSec: 35, runs: 1000, serviceConcurrency: 16, stores: ['json'], connections: 10, durationSec: 1.5, detailAmount: 1000 },
  footprint: { budgetSec: 30, checkpoints: [1000, 5000], retention: 1000, stores: ['json'], connections: 50 },
  postgres: { budgetSec: 200, unique: 300, duplicates: 30, warmup: 300, pgBossWorkers: [8, 32], pgBossBatchSizes: [50, 200], admissionSec: 1.5, connections: 48, rounds: 3 },
  startup: { budgetSec: 70, reps: 3, largeState: 20_000 },
  cancel: { budgetSec: 30, runs: 6 },
  fanout: { budgetSec: 130, subscribers: 1000, runsPerSec: 20, durationSec: 4, admissionSec: 3, connections: 50 },
  tracing: { budgetSec: 60, rounds: 3, durationSec: 2 },
  flows: { budgetSec: 150, fanOutSteps: 400, width: 8, depth: 40, rounds: 3, concurrency: 32, submitConcurrency: 50 },
  fairness: {
    budgetSec: 150,
    concurrency: 4,
    floodRuns: 6000,
    lightRuns: 40,
    lightPerSec: 20,
    fairnessDelayMs: 2,
    fairnessRounds: 3,
    capKeys: 4,
    capRunsPerKey: 25,
    capDelayMs: 20,
    overheadRuns: 1000,
    overheadConcurrency: 32,
    overheadRounds: 3,
  },
};

export const FULL: Settings = {
  totalBudgetSec: 1800,
  concurrency: 4,
  admission: {
    budgetSec: 160,
    connections: 50,
    durationSec: 10,
    rounds: 3,
    warmupSec: 2,
    openLoopRate: 1000,
    openLoopSec: 10,
    saturation: { factor: 1.5, stepSec: 2, maxSteps: 10, maxSec: 24, p99BoundMs: 100, drainMs: 1000, noopCeiling: true },
  },
  health: { budgetSec: 60, connections: 50, durationSec: 8, warmupSec: 1, rounds: 4, stores: ['json', 'sql'] },
  e2e: { budgetSec: 330, rounds: 3, unique: 6000, duplicates: 600, submitConcurrency: 50, settleMs: 1500, pgBossBatchSizes: [100, 200, 500], pgBossWorkers: [8, 16, 32], concurrency: 32 },
  spawn: { budgetSec: 75, runs: 5, rounds: 3, warmup: 2, throughputRuns: 60 },
  reads: { budgetSec: 240, runs: 10_000, serviceConcurrency: 16, stores: ['json', 'sql'], connections: 10, durationSec: 4, detailAmount: 4000 },
  footprint: { budgetSec: 240, checkpoints: [10_000, 100_000], retention: 5000, stores: ['json', 'sql'], connections: 50 },
  postgres: { budgetSec: 360, unique: 4000, duplicates: 400, warmup: 4000, pgBossWorkers: [4, 8, 16, 32], pgBossBatchSizes: [50, 200, 500], admissionSec: 5, connections: 48, rounds: 3 },
  startup: { budgetSec: 90, reps: 5, largeState: 100_000 },
  cancel: { budgetSec: 90, runs: 25 },
  fanout: { budgetSec: 220, subscribers: 1000, runsPerSec: 30, durationSec: 10, admissionSec: 8, connections: 50 },
  tracing: { budgetSec: 90, rounds: 3, durationSec: 6 },
  flows: { budgetSec: 300, fanOutSteps: 1000, width: 10, depth: 100, rounds: 3, concurrency: 32, submitConcurrency: 50 },
  fairness: {
    budgetSec: 300,
    concurrency: 4,
    floodRuns: 10_000,
    lightRuns: 100,
    lightPerSec: 20,
    fairnessDelayMs: 2,
    fairnessRounds: 3,
    capKeys: 6,
    capRunsPerKey: 60,
    capDelayMs: 20,
    overheadRuns: 4000,
    overheadConcurrency: 32,
    overheadRounds: 3,
  },
};
