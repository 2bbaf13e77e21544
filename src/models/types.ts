import type { ModelTier } from '../agents/manifest.js';
import type { ChatMessage } from './lane-request.js';

export type { ChatMessage, LaneCompletionRequest } from './lane-request.js';
export { MAX_ANSWER_TOKENS, MAX_PROMPT_CHARS } from './lane-request.js';

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

/** Why the gateway answered without a completion; a lane reads it as the reason for its fallback. */
export type CompletionRefusal =
  | 'no-provider'
  | 'lane-not-allowed'
  | 'no-model'
  | 'attempt-not-running'
  | 'budget-exhausted'
  | 'provider-failed'
  | 'aborted'
  | 'invalid-request'
  /** Worker side: the service's channel could not be reached or answered out of protocol. */
  | 'channel-failed';

export type CompletionAnswer =
  | { ok: true; text: string; model: string; inputTokens: number; outputTokens: number; costUsd: number; latencyMs: number }
  | { ok: false; refusal: CompletionRefusal; detail: string; model: string | null };

/** The one operation lanes and handlers use; the loopback channel serves the same one to workers. */
export interface ModelGateway {
  complete(request: CompletionRequest): Promise<CompletionAnswer>;
}
