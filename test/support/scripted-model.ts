import type { ChatMessage, CompletionAnswer, LaneCompletionRequest, ModelAccess } from '../../src/worker-sdk/model.js';

/**
 * A lane's model access answering from `answer` (the text the model "writes" for the request it
 * was sent), recording every request: lane tests check both what the lane sent and what it did
 * with the answer. A string answer is a completion; an object is a refusal from the service.
 */
export function scriptedModel(answer: (messages: ChatMessage[], index: number) => string | { refusal: 'budget-exhausted' | 'provider-failed' | 'no-provider'; detail: string }) {
  const requests: LaneCompletionRequest[] = [];
  const model: ModelAccess = {
    async complete(request): Promise<CompletionAnswer> {
      requests.push(request);
      const out = answer(request.messages, requests.length - 1);
      if (typeof out !== 'string') return { ok: false, refusal: out.refusal, detail: out.detail, model: 'small-model' };
      return { ok: true, text: out, model: 'small-model', inputTokens: 100, outputTokens: 40, costUsd: 0.0002, latencyMs: 5 };
    },
  };
  return { model, requests, prompt: (i = 0) => requests[i]!.messages.map((m) => m.content).join('\n') };
}
