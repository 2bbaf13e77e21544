import type { RunRecord } from '../domain/run-record.js';

/** Finished runs the dashboard's accounting covers: the newest ones, so a read stays bounded. */
export const ACCOUNTING_WINDOW = 200;

export interface ModelRollup {
  model: string;
  runs: number;
  metered: boolean;
  costUsd: number;
  totalTokens: number;
  averageLatencyMs: number | null;
}

export interface AccountingRollup {
  /** Finished runs with accounting the figures cover (newest first, at most ACCOUNTING_WINDOW). */
  windowRuns: number;
  totalCostUsd: number;
  /** The budget the newest accounted run reported; null figures when no budget is configured. */
  currentBudget: { limitUsd: number | null; remainingUsd: number | null };
  meteredRuns: number;
  unmeteredRuns: number;
  tokens: { inputTokens: number; outputTokens: number; totalTokens: number };
  averageLatencyMs: number | null;
  byModel: ModelRollup[];
  /** The newest community-response run's budget snapshot (daily LLM budget), null when none ran. */
  communityHelperBudget: { runId: string; at: string; metered: boolean; costUsd: number; limitUsd: number | null; remainingUsd: number | null } | null;
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
const mean = (sum: number, n: number) => (n === 0 ? null : Math.round(sum / n));

/** Sums the accounting of runs (newest first). Runs without accounting (not finished) are skipped. */
export function rollupAccounting(runs: readonly RunRecord[], latestCommunityRun: RunRecord | null): AccountingRollup {
  const accounted = runs.filter((r) => r.accounting !== null);
  const models = new Map<string, { runs: number; metered: boolean; costUsd: number; totalTokens: number; latencySum: number; latencyN: number }>();
  let totalCostUsd = 0;
  let metered = 0;
  let latencySum = 0;
  let latencyN = 0;
  const tokens = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const run of accounted) {
    const a = run.accounting!;
    totalCostUsd += a.costUsd;
    if (a.metered) metered += 1;
    tokens.inputTokens += a.usage.inputTokens;
    tokens.outputTokens += a.usage.outputTokens;
    tokens.totalTokens += a.usage.totalTokens;
    if (a.latencyMs !== null) {
      latencySum += a.latencyMs;
      latencyN += 1;
    }
    const key = a.model ?? 'unknown';
    const m = models.get(key) ?? { runs: 0, metered: a.metered, costUsd: 0, totalTokens: 0, latencySum: 0, latencyN: 0 };
    m.runs += 1;
    m.metered ||= a.metered;
    m.costUsd += a.costUsd;
    m.totalTokens += a.usage.totalTokens;
    if (a.latencyMs !== null) {
      m.latencySum += a.latencyMs;
      m.latencyN += 1;
    }
    models.set(key, m);
  }
  const community = latestCommunityRun?.accounting ?? null;
  return {
    windowRuns: accounted.length,
    totalCostUsd: round6(totalCostUsd),
    currentBudget: { ...(accounted[0]?.accounting?.budget ?? { limitUsd: null, remainingUsd: null }) },
    meteredRuns: metered,
    unmeteredRuns: accounted.length - metered,
    tokens,
    averageLatencyMs: mean(latencySum, latencyN),
    byModel: [...models.entries()]
      .map(([model, m]) => ({
        model,
        runs: m.runs,
        metered: m.metered,
        costUsd: round6(m.costUsd),
        totalTokens: m.totalTokens,
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
