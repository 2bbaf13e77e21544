import type { ModelPrice } from '../config/types.js';

const PER_MILLION = 1_000_000;
/** Characters per token for a rough count before the call (the provider's usage is the real figure after it). */
const CHARS_PER_TOKEN = 3;

const round8 = (n: number) => Math.round(n * 1e8) / 1e8;

/** What a call cost at the configured price; a model without a price costs 0 (a local server). */
export function costOf(price: ModelPrice | undefined, inputTokens: number, outputTokens: number): number {
  if (!price) return 0;
  return round8((inputTokens * price.inputPerMillionTokensUsd + outputTokens * price.outputPerMillionTokensUsd) / PER_MILLION);
}

/**
 * The most a call can cost before it is made: the prompt counted generously and the answer at its
 * token cap. The budget is charged this much up front and settled to the real cost after, so
 * instances sharing the budget cannot together start calls it cannot cover.
 */
export function worstCaseCost(price: ModelPrice | undefined, promptChars: number, maxTokens: number): number {
  return costOf(price, Math.ceil(promptChars / CHARS_PER_TOKEN) + 16, maxTokens);
}
