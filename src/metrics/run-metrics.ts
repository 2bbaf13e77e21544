import { Counter, Histogram, type Registry } from 'prom-client';
import type { RunRecord } from '../domain/run-record.js';
import { bucketHoldsOf, type LimitBucket } from '../store/limit-buckets.js';
import type { MutateResult } from '../store/types.js';
import { BoundedLabel } from './bounded-label.js';
import {
  attemptEndedAfter,
  eventsAppendedBy,
  FINISH_STATUSES,
  finishedBy,
  modelCallsIn,
  queueWaitOf,
  retryScheduledBy,
  startedBy,
} from './run-write-meaning.js';

/** Upper bounds (seconds) of the run duration buckets: a handler's milliseconds to a worker's half hour. */
export const RUN_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800] as const;
/** Upper bounds (seconds) of the queue wait buckets: a free slot's milliseconds to a backlog's quarter hour. */
export const QUEUE_WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900] as const;
/** The outcomes of a model call as its event names them. */
const MODEL_CALL_OUTCOMES = ['ok', 'failed'];

/**
 * The most values the `type` label takes (`other` aside): every type known at start, and the
 * operator types reloads add while the label holds fewer than this (docs/metrics.md).
 */
export const MAX_TYPE_LABEL_VALUES = 200;

/** The values the run metrics' labels may take; anything else is counted under `other`. */
export interface RunMetricLabels {
  /** Every task type of the registry. */
  types: readonly string[];
  /** Every model the configuration or an agent manifest names. */
  models: readonly string[];
  /** Config `limits`: the bucket label of the per-bucket queue wait takes their names (a bounded set); absent: none. */
  buckets?: readonly LimitBucket[];
}

/**
 * The counters and histograms of what this instance's runtime and model gateway do to runs,
 * fed from the run writes it commits (observed-run-store.ts) and its worker spawns. They count
 * this instance's work only, so Prometheus sums them across instances sharing a store.
 */
export class RunMetrics {
  private readonly type: BoundedLabel;
  private readonly model: BoundedLabel;
  private readonly modelOutcome = new BoundedLabel(MODEL_CALL_OUTCOMES);
  private readonly finished: Counter<'type' | 'status'>;
  private readonly attempts: Counter<'type'>;
  private readonly retries: Counter<'type'>;
  private readonly spawnFailures: Counter<'type'>;
  private readonly runDuration: Histogram<'type'>;
  private readonly queueWait: Histogram<'type'>;
  private readonly bucketWait: Histogram<'bucket'>;
  private readonly bucketNames: ReadonlySet<string>;
  private readonly modelCalls: Counter<'model' | 'status'>;
  private readonly inputTokens: Counter<'model'>;
  private readonly outputTokens: Counter<'model'>;
  private readonly modelCost: Counter<'model'>;

  constructor(registry: Registry, labels: RunMetricLabels) {
    this.type = new BoundedLabel(labels.types);
    this.model = new BoundedLabel(labels.models);
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]) =>
      new Histogram<L>({ name, help, labelNames, buckets: [...buckets], registers });
    this.finished = counter(
      'orchestrator_runs_finished_total',
      'Runs this instance saw end, by task type and status (success, failed, cancelled; rejected and approved: held runs settled by their approval)',
      ['type', 'status'],
    );
    this.attempts = counter('orchestrator_run_attempts_total', 'Attempts this instance claimed and started, by task type', ['type']);
    this.retries = counter('orchestrator_run_retries_total', 'Retries scheduled after a failed attempt, by task type', ['type']);
    this.spawnFailures = counter(
      'orchestrator_worker_spawn_failures_total',
      'Worker processes this instance could not start (no entrypoint, unknown agent, spawn error), by task type',
      ['type'],
    );
    this.runDuration = histogram(
      'orchestrator_run_duration_seconds',
      'Time an attempt executed, from its claim to its end (success, failure, retry or cancel), by task type',
      ['type'],
      RUN_DURATION_BUCKETS,
    );
    this.queueWait = histogram(
      'orchestrator_run_queue_wait_seconds',
      'Time an attempt waited from its admission to its claim, by task type (approval waits and retry backoffs excluded)',
      ['type'],
      QUEUE_WAIT_BUCKETS,
    );
    this.bucketNames = new Set((labels.buckets ?? []).map((bucket) => bucket.name));
    this.bucketWait = histogram(
      'orchestrator_queue_bucket_wait_seconds',
      'Time an attempt a limit bucket held back waited from its admission to its claim, by bucket (each bucket a claim found full for it)',
      ['bucket'],
      QUEUE_WAIT_BUCKETS,
    );
    this.modelCalls = counter('orchestrator_model_calls_total', 'Model provider calls made for runs, by model and outcome (ok, failed)', ['model', 'status']);
    this.inputTokens = counter('orchestrator_model_input_tokens_total', 'Prompt tokens of model calls, by model', ['model']);
    this.outputTokens = counter('orchestrator_model_output_tokens_total', 'Answer tokens of model calls, by model', ['model']);
    this.modelCost = counter('orchestrator_model_cost_usd_total', 'Cost of model calls in USD at the configured prices, by model', ['model']);
    this.showKnownSeries();
  }

  /**
   * Every counter series of a known label value from the start, at zero: `increase()` over a
   * series that appears with its first count misses that count, and an alert on a type's first
   * failure after a restart would never fire.
   */
  private showKnownSeries(): void {
    this.showTypeSeries(this.type.knownValues());
    for (const model of this.model.knownValues()) {
      for (const status of MODEL_CALL_OUTCOMES) this.modelCalls.inc({ model, status }, 0);
      this.inputTokens.inc({ model }, 0);
      this.outputTokens.inc({ model }, 0);
      this.modelCost.inc({ model }, 0);
    }
  }

  private showTypeSeries(types: readonly string[]): void {
    for (const type of types) {
      for (const status of FINISH_STATUSES) this.finished.inc({ type, status }, 0);
      this.attempts.inc({ type }, 0);
      this.retries.inc({ type }, 0);
      this.spawnFailures.inc({ type }, 0);
    }
  }

  /**
   * Task types known since the start (a reload added them): each gets its own label value at
   * once, its counter series at zero, up to MAX_TYPE_LABEL_VALUES values; answers those added.
   */
  knowTypes(types: readonly string[]): string[] {
    const added = this.type.admit(types, MAX_TYPE_LABEL_VALUES);
    this.showTypeSeries(added);
    return added;
  }

  /** A committed write of a run by this instance (mutateRun, finishRun, ...). */
  written(result: MutateResult): void {
    if (!result.changed) return;
    const { before, after } = result;
    if (after === null) return;
    // An admission that found a free slot starts its run in the same write: no claim follows.
    if (startedBy(before, after)) this.claimed(after);
    const type = this.type.of(after.type);
    const finish = finishedBy(before, after);
    if (finish !== null) this.finished.inc({ type, status: finish });
    const executed = attemptEndedAfter(before, after);
    if (executed !== null) this.runDuration.observe({ type }, executed);
    if (retryScheduledBy(before, after)) this.retries.inc({ type });
    for (const call of modelCallsIn(eventsAppendedBy(before, after))) {
      const model = this.model.of(call.model);
      this.modelCalls.inc({ model, status: this.modelOutcome.of(call.outcome) });
      this.inputTokens.inc({ model }, call.inputTokens);
      this.outputTokens.inc({ model }, call.outputTokens);
      this.modelCost.inc({ model }, call.costUsd);
    }
  }

  /** A run this instance claimed (or started at its admission): an attempt starts. */
  claimed(run: RunRecord): void {
    const type = this.type.of(run.type);
    this.attempts.inc({ type });
    const waited = queueWaitOf(run);
    if (waited === null) return;
    this.queueWait.observe({ type }, waited);
    // Only the buckets a claim found full for this attempt (RunRecord.bucketHolds): a run that
    // never waited on a bucket is in no bucket's waits. Names outside this instance's config (a
    // reload removed them, another instance's limits) are left out: the label stays bounded.
    for (const name of bucketHoldsOf(run)) if (this.bucketNames.has(name)) this.bucketWait.observe({ bucket: name }, waited);
  }

  /** A worker of this task type could not be started. */
  spawnFailed(taskType: string): void {
    this.spawnFailures.inc({ type: this.type.of(taskType) });
  }
}
