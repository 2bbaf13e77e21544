import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/registry.js';
import type { Clock } from '../clock.js';
import type { LlmConfig } from '../config/types.js';
import type { ModelCall, RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { withEvent } from '../domain/run-events.js';
import { answerProblem, MAX_ANSWER_CHARS } from './answer-guard.js';
import { remainderOf, type DailyBudget } from './daily-budget.js';
import { laneModel } from './lane-policy.js';
import { costOf, worstCaseCost } from './prices.js';
import { ProviderCallError, type ProviderClient } from './provider-client.js';
import { MAX_ANSWER_TOKENS, MAX_PROMPT_CHARS, type CompletionRequest, type ModelGateway } from './types.js';

export interface GatewayDeps {
  config: LlmConfig;
  store: Pick<StateStore, 'getRun' | 'mutateRun'>;
  registry: Pick<AgentRegistry, 'forLane'>;
  clock: Clock;
  logger: Logger;
  budget: DailyBudget;
  /** Null when no provider is configured (neither OPENAI_API_KEY nor OPENAI_BASE_URL). */
  provider: ProviderClient | null;
  /** Values no answer may carry (the provider key, the service's own secrets). */
  secrets: readonly string[];
}

/** A run whose attempt may still use a model: running that very attempt, no cancel asked. */
function attemptRunning(run: RunRecord | null, attempt: number): boolean {
  return run !== null && run.status === 'running' && run.attempt === attempt && !run.cancellation;
}

function requestProblem(request: CompletionRequest): string | null {
  if (!Array.isArray(request.messages) || request.messages.length === 0) return 'messages must hold at least one message';
  const chars = request.messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : Infinity), 0);
  if (chars > MAX_PROMPT_CHARS) return `messages hold ${chars} characters; at most ${MAX_PROMPT_CHARS} are sent`;
  if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1 || request.maxTokens > MAX_ANSWER_TOKENS) {
    return `maxTokens must be an integer from 1 to ${MAX_ANSWER_TOKENS}`;
  }
  return null;
}

/**
 * The one way to a model. Before a request is sent it checks, in order: the request's bounds, that
 * a provider is configured, that the lane may use a model (and which), that the attempt is still
 * running, and that the shared daily budget covers the call's worst case. Then it calls the
 * provider (retries and backoff in the client), checks the answer carries no secret, and records
 * the call on the run (src/domain/run-record.ts ModelCall), which finalize sums into the run's
 * accounting. A refusal says why; the lane falls back to its deterministic path.
 */
export function createModelGateway(deps: GatewayDeps): ModelGateway {
  const { config, store, registry, clock, logger, budget, provider } = deps;

  async function record(request: CompletionRequest, call: Omit<ModelCall, 'at' | 'attempt' | 'lane' | 'budget'>, spentUsd: number): Promise<void> {
    const limitUsd = budget.limitUsd;
    const entry: ModelCall = {
      at: clock.now().toISOString(),
      attempt: request.attempt,
      lane: request.lane,
      ...call,
      budget: { limitUsd, remainingUsd: limitUsd === null ? null : remainderOf(limitUsd, spentUsd) },
    };
    // The call was made and paid for whatever became of the attempt since: it is recorded on the
    // run, with an event so that streams and the console see it as it happens.
    const detail = `${entry.model} ${entry.outcome}: ${entry.inputTokens} in, ${entry.outputTokens} out, ${entry.costUsd} USD, ${entry.tries} tr${entry.tries === 1 ? 'y' : 'ies'}`;
    await store.mutateRun(request.runId, (run) =>
      run
        ? withEvent({ ...run, modelCalls: [...(run.modelCalls ?? []), entry] }, clock.now(), {
            kind: 'execution',
            name: 'model-call',
            detail: entry.error ? `${detail} (${entry.error})` : detail,
            data: { model: entry.model, outcome: entry.outcome, inputTokens: entry.inputTokens, outputTokens: entry.outputTokens, costUsd: entry.costUsd, attempt: entry.attempt },
          })
        : null,
    );
  }

  return {
    async complete(request) {
      const problem = requestProblem(request);
      if (problem) return { ok: false, refusal: 'invalid-request', detail: problem, model: null };
      // A secret of the service never leaves for a provider, whoever put it in the prompt.
      if (request.messages.some((m) => answerProblem(m.content, deps.secrets) !== null)) {
        return { ok: false, refusal: 'invalid-request', detail: 'the prompt contains secret text held by the service; nothing was sent', model: null };
      }
      if (!provider) return { ok: false, refusal: 'no-provider', detail: 'no model provider is configured (OPENAI_API_KEY or OPENAI_BASE_URL)', model: null };
      const picked = laneModel(registry, config, request.lane, { ...(request.tier ? { tier: request.tier } : {}), ...(request.name ? { name: request.name } : {}) });
      if (picked.model === null) return { ok: false, refusal: picked.reason, detail: picked.detail, model: null };
      const model = picked.model;
      if (request.signal?.aborted) return { ok: false, refusal: 'aborted', detail: 'the attempt was stopped', model };
      if (!attemptRunning(await store.getRun(request.runId), request.attempt)) {
        return { ok: false, refusal: 'attempt-not-running', detail: `run ${request.runId} attempt ${request.attempt} is not running`, model };
      }

      const price = config.prices[model];
      const promptChars = request.messages.reduce((n, m) => n + m.content.length, 0);
      const reservedUsd = worstCaseCost(price, promptChars, request.maxTokens);
      const reservation = await budget.reserve(reservedUsd);
      if (!reservation.admitted) {
        return {
          ok: false,
          refusal: 'budget-exhausted',
          detail: `the daily model budget (${budget.limitUsd} USD) cannot cover this call (up to ${reservedUsd} USD; ${reservation.spentUsd} spent today)`,
          model,
        };
      }

      const started = Date.now();
      try {
        const answer = await provider.complete({ model, messages: request.messages, maxTokens: request.maxTokens, ...(request.signal ? { signal: request.signal } : {}) });
        const latencyMs = Date.now() - started;
        const costUsd = costOf(price, answer.inputTokens, answer.outputTokens);
        const spent = await budget.settle(reservation, reservedUsd, costUsd);
        const withheld = answerProblem(answer.text, deps.secrets);
        await record(request, { model, outcome: withheld ? 'failed' : 'ok', inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, costUsd, latencyMs, tries: answer.tries, error: withheld }, spent);
        if (withheld) {
          logger.warn({ runId: request.runId, lane: request.lane, model }, withheld);
          return { ok: false, refusal: 'provider-failed', detail: withheld, model };
        }
        return { ok: true, text: answer.text.slice(0, MAX_ANSWER_CHARS), model, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, costUsd, latencyMs };
      } catch (err) {
        const latencyMs = Date.now() - started;
        const spent = await budget.settle(reservation, reservedUsd, 0);
        const failure = err instanceof ProviderCallError ? err : new ProviderCallError('exhausted', err instanceof Error ? err.message : String(err), 1);
        if (failure.tries > 0) {
          await record(request, { model, outcome: 'failed', inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs, tries: failure.tries, error: failure.message }, spent);
        }
        logger.warn({ runId: request.runId, lane: request.lane, model, tries: failure.tries }, `model call failed: ${failure.message}`);
        return { ok: false, refusal: failure.kind === 'aborted' ? 'aborted' : 'provider-failed', detail: failure.message, model };
      }
    },
  };
}
