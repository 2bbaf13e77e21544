import type { CompletionAnswer, CompletionRefusal, LaneCompletionRequest } from '../common/model-request.js';

export type { ChatMessage, CompletionAnswer, CompletionRefusal, LaneCompletionRequest } from '../common/model-request.js';

/** The payload key the service puts the attempt's model channel under (src/models/channel.ts). */
const CHANNEL_KEY = '__model';

/** A lane's way to a model: always answers, never throws; a refusal says why there is no text. */
export interface ModelAccess {
  complete(request: LaneCompletionRequest): Promise<CompletionAnswer>;
}

/**
 * Which path produced a lane's text, and why when it was the deterministic one (no provider, the
 * lane runs locally, the budget is spent, the provider failed after retries, the answer did not
 * pass the lane's checks).
 */
export type Generation = { path: 'provider'; model: string } | { path: 'deterministic'; reason: string; model?: string };

const refused = (refusal: CompletionRefusal, detail: string, model: string | null = null): CompletionAnswer => ({ ok: false, refusal, detail, model });

/** No channel at all (a lane run outside the service, a test): every request is refused. */
export const NO_MODEL: ModelAccess = {
  complete: async () => refused('no-provider', 'no model channel was given to this attempt'),
};

function isAnswer(value: unknown): value is CompletionAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.ok === true ? typeof v.text === 'string' && typeof v.model === 'string' : v.ok === false && typeof v.refusal === 'string';
}

/**
 * The model access of an attempt, from the channel the service put in its payload: a loopback
 * endpoint and a token that lives as long as the attempt. The worker holds no provider key; the
 * service makes the call, meters it and may refuse it.
 */
export function modelAccessOf(payload: Readonly<Record<string, unknown>>, fetchImpl: typeof fetch = fetch): ModelAccess {
  const channel = payload[CHANNEL_KEY];
  if (typeof channel !== 'object' || channel === null) return NO_MODEL;
  const c = channel as Record<string, unknown>;
  if (typeof c.endpoint !== 'string' || typeof c.token !== 'string') {
    const reason = typeof c.reason === 'string' ? (c.reason as CompletionRefusal) : 'no-provider';
    const detail = typeof c.detail === 'string' ? c.detail : 'the service offered no model to this attempt';
    return { complete: async () => refused(reason, detail) };
  }
  const { endpoint, token } = c as { endpoint: string; token: string };
  return {
    async complete(request) {
      try {
        const response = await fetchImpl(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(request),
        });
        const body: unknown = await response.json().catch(() => null);
        if (response.ok && isAnswer(body)) return body;
        const error = typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).error === 'string' ? (body as { error: string }).error : `HTTP ${response.status}`;
        return refused('channel-failed', `model channel refused the request: ${error}`);
      } catch (err) {
        return refused('channel-failed', `model channel unreachable: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

/** The deterministic path's generation record for a refused or unusable answer. */
export function deterministicBecause(answer: CompletionAnswer | null, reason?: string): Generation {
  if (reason !== undefined) return { path: 'deterministic', reason, ...(answer?.model ? { model: answer.model } : {}) };
  if (answer && !answer.ok) return { path: 'deterministic', reason: `${answer.refusal}: ${answer.detail}`, ...(answer.model ? { model: answer.model } : {}) };
  return { path: 'deterministic', reason: 'no model was asked' };
}
