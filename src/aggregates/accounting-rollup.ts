import type { RunRecord } from '../domain/run-record.js';

/** Finished runs the dashboard's accounting covers: the newest ones, so a read stays bounded. */
export const ACCOUNTING_WINDOW = 200;

export interface ModelRollup {
  model: string;
  /** Runs that used the model (a metered run with calls to two models counts for both). */
  runs: number;
  metered: boolean;
  /** Provider calls made to the model, failed ones included (0 for local-deterministic). */
  calls: number;
  failedCalls: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Per call for a provider model, per run for local-deterministic. */
  averageLatencyMs: number | null;
}

/** The shared daily model budget as read now (src/models/daily-budget.ts); null figures without a limit. */
export interface LiveBudget {
  limitUsd: number | null;
  remainingUsd: number | null;
}

export interface AccountingRollup {
  /** Finished runs with accounting the figures cover (newest first, at most ACCOUNTING_WINDOW). */
  windowRuns: number;
  totalCostUsd: number;
  /** Today's shared model budget read live, else the one the newest accounted run reported; null figures without a limit. */
  currentBudget: { limitUsd: number | null; remainingUsd: number | null };
  meteredRuns: number;
  /** Provider calls of the window's runs, failed ones included. */
  modelCalls: number;
  unmeteredRuns: number;
  tokens: { inputTokens: number; outputTokens: number; totalTokens: number };
  averageLatencyMs: number | null;
  byModel: ModelRollup[];
  /** The newest community-response run's budget snapshot (daily LLM budget), null when none ran. */
  communityHelperBudget: { runId: string; at: string; metered: boolean; costUsd: number; limitUsd: number | null; remainingUsd: number | null } | null;
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
const mean = (sum: number, n: number) => (n === 0 ? null : Math.round(sum / n));

/** A model's figures as they are summed, run by run: the rollup's counts, its runs as a set, its latency as a sum. */
interface ModelTally extends Pick<ModelRollup, 'metered' | 'calls' | 'failedCalls' | 'costUsd' | 'inputTokens' | 'outputTokens'> {
  runs: Set<string>;
  latencySum: number;
  latencyN: number;
}

function tallyOf(models: Map<string, ModelTally>, model: string, metered: boolean): ModelTally {
  let tally = models.get(model);
  if (!tally) {
    tally = { runs: new Set(), metered, calls: 0, failedCalls: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, latencySum: 0, latencyN: 0 };
    models.set(model, tally);
  }
  return tally;
}

/**
 * Adds one run to the per-model tallies: a metered run by each model call the gateway recorded on
 * it (src/domain/run-record.ts ModelCall), an unmetered one as a run of its accounting's model.
 */
function addRun(models: Map<string, ModelTally>, run: RunRecord): void {
  const a = run.accounting!;
  const calls = run.modelCalls ?? [];
  if (a.metered && calls.length > 0) {
    for (const call of calls) {
      const m = tallyOf(models, call.model, true);
      m.runs.add(run.runId);
      m.calls += 1;
      if (call.outcome === 'failed') m.failedCalls += 1;
      m.costUsd += call.costUsd;
      m.inputTokens += call.inputTokens;
      m.outputTokens += call.outputTokens;
      m.latencySum += call.latencyMs;
      m.latencyN += 1;
    }
    return;
  }
  const m = tallyOf(models, a.model ?? 'unknown', a.metered);
  m.runs.add(run.runId);
  m.metered ||= a.metered;
  m.costUsd += a.costUsd;
  m.inputTokens += a.usage.inputTokens;
  m.outputTokens += a.usage.outputTokens;
  if (a.latencyMs !== null) {
    m.latencySum += a.latencyMs;
    m.latencyN += 1;
  }
}

/**
 * Sums the accounting of runs (newest first). Runs without accounting (not finished) are skipped.
 * `liveBudget`, when given, is today's shared budget as read now: fresher than any run's snapshot.
 */
export function rollupAccounting(runs: readonly RunRecord[], latestCommunityRun: RunRecord | null, liveBudget?: LiveBudget): AccountingRollup {
  const accounted = runs.filter((r) => r.accounting !== null);
  const models = new Map<string, ModelTally>();
  let totalCostUsd = 0;
  let metered = 0;
  let modelCalls = 0;
  let latencySum = 0;
  let latencyN = 0;
  const tokens = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const run of accounted) {
    const a = run.accounting!;
    totalCostUsd += a.costUsd;
    if (a.metered) metered += 1;
    modelCalls += run.modelCalls?.length ?? 0;
    tokens.inputTokens += a.usage.inputTokens;
    tokens.outputTokens += a.usage.outputTokens;
    tokens.totalTokens += a.usage.totalTokens;
    if (a.latencyMs !== null) {
      latencySum += a.latencyMs;
      latencyN += 1;
    }
    addRun(models, run);
  }
  const community = latestCommunityRun?.accounting ?? null;
  return {
    windowRuns: accounted.length,
    totalCostUsd: round6(totalCostUsd),
    currentBudget: { ...(liveBudget ?? accounted[0]?.accounting?.budget ?? { limitUsd: null, remainingUsd: null }) },
    meteredRuns: metered,
    modelCalls,
    unmeteredRuns: accounted.length - metered,
    tokens,
    averageLatencyMs: mean(latencySum, latencyN),
    byModel: [...models.entries()]
      .map(([model, m]) => ({
        model,
        runs: m.runs.size,
        metered: m.metered,
        calls: m.calls,
        failedCalls: m.failedCalls,
        costUsd: round6(m.costUsd),
        inputTokens: m.inputTokens,
        outputTokens: m.outputTokens,
        totalTokens: m.inputTokens + m.outputTokens,
        averageLatencyMs: mean(m.latencySum, m.latencyN),
      }))
      .sort((a, b) => b.runs - a.runs || a.model.localeCompare(b.model)),
    communityHelperBudget:
      latestCommunityRun && community
        ? {
            runId: latestCommunityRun.runId,
            at: latestCommunityRun.finishedAt ?? latestCommunityRun.updatedAt,
            metered: community.metered,
            costUsd: round6(community.costUsd),
            limitUsd: community.budget.limitUsd,
            remainingUsd: community.budget.remainingUsd,
          }
        : null,
  };
}
