import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';

/** Bounds of a request a lane may send (prompt size, answer size). */
export const MAX_PROMPT_CHARS = 60_000;
export const MAX_ANSWER_TOKENS = 4_000;

export const ChatMessageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String({ maxLength: MAX_PROMPT_CHARS }),
  },
  { additionalProperties: false },
);

/**
 * What a lane sends through its model channel. Run, attempt and lane are not part of it: the
 * channel's grant decides them, and other fields a worker adds are ignored.
 */
export const LaneCompletionRequestSchema = Type.Object({
  messages: Type.Array(ChatMessageSchema, { minItems: 1, maxItems: 50 }),
  maxTokens: Type.Integer({ minimum: 1, maximum: MAX_ANSWER_TOKENS }),
  tier: Type.Optional(Type.Union([Type.Literal('standard'), Type.Literal('advanced')])),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export type ChatMessage = Static<typeof ChatMessageSchema>;
export type LaneCompletionRequest = Static<typeof LaneCompletionRequestSchema>;

const validator = Compile(LaneCompletionRequestSchema);

/** The request as the lane sent it, or what is wrong with it (JSON pointers, as payload refusals name them). */
export function readLaneRequest(value: unknown): LaneCompletionRequest | string {
  if (validator.Check(value)) {
    const { messages, maxTokens, tier, name } = value;
    return { messages: messages.map((m) => ({ role: m.role, content: m.content })), maxTokens, ...(tier ? { tier } : {}), ...(name ? { name } : {}) };
  }
  return [...new Set([...validator.Errors(value)].map((e) => `${e.instancePath || '/'} ${e.message}`))].slice(0, 5).join('; ');
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
