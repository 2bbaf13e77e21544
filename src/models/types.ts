import type { ModelTier } from '../agents/manifest.js';
import type { ChatMessage, CompletionAnswer } from '../common/model-request.js';

// What a worker and the gateway exchange over the loopback channel lives in src/common/ (worker
// processes load it); the service reaches it through this module.
export type { ChatMessage, CompletionAnswer, CompletionRefusal, LaneCompletionRequest } from '../common/model-request.js';
export { MAX_ANSWER_TOKENS, MAX_PROMPT_CHARS } from '../common/model-request.js';

/** What a lane asks the gateway for. The run, attempt and lane come from the caller's grant, never from the lane. */
export interface CompletionRequest {
  runId: string;
  attempt: number;
  lane: string;
  messages: ChatMessage[];
  /** Overrides the agent manifest's tier; `name` overrides both. */
  tier?: Exclude<ModelTier, 'local'>;
  name?: string;
  maxTokens: number;
  /** The attempt's signal: once aborted (cancel, timeout, lease lost) no further request is sent. */
  signal?: AbortSignal;
}

/** The one operation lanes and handlers use; the loopback channel serves the same one to workers. */
export interface ModelGateway {
  complete(request: CompletionRequest): Promise<CompletionAnswer>;
}
