import type { RunAccounting } from '../domain/run-record.js';

/**
 * Deterministic execution accounting. Every lane in this build runs locally (in-process handler or
 * a worker's deterministic path), so runs cost 0 and say explicitly that they were not metered.
 * A lane that calls a provider reports its model and token usage in its result (`usage`), which
 * turns the run into a metered one.
 */
export function accountingFor(result: unknown, latencyMs: number): RunAccounting {
  const usage = readUsage(result);
  if (usage) {
    return {
      model: usage.model,
      metered: true,
      costUsd: usage.costUsd,
      note: `metered: provider model ${usage.model}`,
      latencyMs,
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.inputTokens + usage.outputTokens },
      budget: { limitUsd: null, remainingUsd: null },
    };
  }
  return {
    model: 'local-deterministic',
    metered: false,
    costUsd: 0,
    note: 'unmetered: local deterministic execution, no provider call was made',
    latencyMs,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    budget: { limitUsd: null, remainingUsd: null },
  };
}

function readUsage(result: unknown): { model: string; inputTokens: number; outputTokens: number; costUsd: number } | null {
  if (typeof result !== 'object' || result === null) return null;
  const usage = (result as Record<string, unknown>).usage;
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as Record<string, unknown>;
  if (typeof u.model !== 'string' || typeof u.inputTokens !== 'number' || typeof u.outputTokens !== 'number') return null;
  return {
    model: u.model,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    costUsd: typeof u.costUsd === 'number' ? u.costUsd : 0,
  };
}
