import type { ModelCall, RunAccounting } from '../domain/run-record.js';

const UNMETERED_NOTE = 'unmetered: local deterministic execution, no provider call was made';
const round8 = (n: number) => Math.round(n * 1e8) / 1e8;

/**
 * A run's execution accounting. The service meters every model call it makes for a run
 * (src/models/gateway.ts records each on the run as a ModelCall); a run with calls sums them and is
 * `metered`, its model the one most of its tokens went to. A run without calls ran locally (an
 * in-process handler or a worker's deterministic path): cost 0 and an explicit unmetered note.
 * What a lane's result says about usage is not read: only calls the service made count.
 */
export function accountingFor(calls: readonly ModelCall[] | undefined, latencyMs: number): RunAccounting {
  if (calls && calls.length > 0) {
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const tokensByModel = new Map<string, number>();
    let costUsd = 0;
    for (const call of calls) {
      usage.inputTokens += call.inputTokens;
      usage.outputTokens += call.outputTokens;
      costUsd += call.costUsd;
      tokensByModel.set(call.model, (tokensByModel.get(call.model) ?? 0) + call.inputTokens + call.outputTokens);
    }
    usage.totalTokens = usage.inputTokens + usage.outputTokens;
    const model = [...tokensByModel.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const failed = calls.filter((c) => c.outcome === 'failed').length;
    const models = [...tokensByModel.keys()].join(', ');
    return {
      model,
      metered: true,
      costUsd: round8(costUsd),
      note: `metered: ${calls.length} provider call${calls.length === 1 ? '' : 's'} (${models})${failed > 0 ? `, ${failed} failed` : ''}`,
      latencyMs,
      usage,
      budget: { ...calls[calls.length - 1]!.budget },
    };
  }
  return {
    model: 'local-deterministic',
    metered: false,
    costUsd: 0,
    note: UNMETERED_NOTE,
    latencyMs,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    budget: { limitUsd: null, remainingUsd: null },
  };
}
