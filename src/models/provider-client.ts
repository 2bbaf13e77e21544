import type * as openai from 'openai';
import type OpenAI from 'openai';
import { lazyPackage } from '../common/lazy-package.js';
import type { LlmConfig } from '../config/types.js';
import { guardedFetchFunction, OutboundRefusal } from '../net/fetch-function.js';
import type { ChatMessage } from './types.js';

/** What one successful completion returned. */
export interface ProviderCompletion {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** Requests sent, retries included. */
  tries: number;
}

/** A completion that did not come: why, and how many requests were sent. */
export class ProviderCallError extends Error {
  constructor(
    readonly kind: 'aborted' | 'exhausted' | 'rejected',
    message: string,
    readonly tries: number,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }
}

export interface ProviderClient {
  complete(request: { model: string; messages: ChatMessage[]; maxTokens: number; signal?: AbortSignal }): Promise<ProviderCompletion>;
}

/** The key sent to a local server that needs none: the client library refuses to start without one. */
const NO_KEY = 'no-key';
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 8_000;
/** A Retry-After longer than this is not waited for: the call counts as failed and the lane falls back. */
const RETRY_AFTER_MAX_MS = 30_000;
/** An answer larger than this is not read: a chat completion is a few kilobytes. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/** One failed request, classified: retry it (after `waitMs` when the provider said so) or give up. */
interface TryFailure {
  retry: boolean;
  reason: string;
  waitMs?: number;
}

/** Retry-After in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The provider's library, loaded at the first completion asked for (most starts never ask for one). */
const loadOpenAI = lazyPackage<typeof openai>('openai');

function classify(err: unknown): TryFailure | 'aborted' {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = loadOpenAI();
  if (err instanceof APIUserAbortError) return 'aborted';
  // The base URL (or a redirect) reaches an address the operator did not allow: asking again changes nothing.
  if (err instanceof APIConnectionError && err.cause instanceof OutboundRefusal) return { retry: false, reason: `base URL refused: ${err.cause.message}` };
  if (err instanceof APIConnectionTimeoutError) return { retry: true, reason: 'timed out' };
  if (err instanceof APIConnectionError) return { retry: true, reason: `connection failed (${err.message})` };
  if (err instanceof APIError) {
    const status = err.status ?? 0;
    if (status === 429) {
      const wait = retryAfterMs(err.headers?.get('retry-after'));
      return { retry: wait === null || wait <= RETRY_AFTER_MAX_MS, reason: 'rate limited (429)', ...(wait !== null ? { waitMs: wait } : {}) };
    }
    if (status >= 500 || status === 408 || status === 409) return { retry: true, reason: `provider error (${status})` };
    return { retry: false, reason: `provider refused the request (${status})` };
  }
  // An answer the client could not read (not JSON, cut off): the next try may be whole.
  return { retry: true, reason: `malformed answer (${err instanceof Error ? err.message : String(err)})` };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Exponential backoff with full jitter, so instances retrying together spread out. */
function backoffMs(failedTries: number): number {
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (failedTries - 1));
  return cap / 2 + Math.random() * (cap / 2);
}

/** The answer's text and usage, or why it cannot be used. */
function readAnswer(answer: OpenAI.Chat.Completions.ChatCompletion): { text: string; inputTokens: number | null; outputTokens: number | null } | string {
  const text = answer?.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') return 'malformed answer (no message content)';
  const usage = answer.usage;
  return {
    text,
    inputTokens: typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : null,
    outputTokens: typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : null,
  };
}

/** A provider that reports no usage is charged by a rough count of characters, never by nothing. */
const roughTokens = (text: string) => Math.ceil(text.length / 3);

/**
 * The one provider client: OpenAI-compatible chat completions through the official `openai`
 * library (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio, OpenRouter). The
 * library's own retries are off so that this loop decides: timeouts, 429 (waiting Retry-After),
 * 5xx, malformed answers and refused connections are retried with backoff up to `maxRetries`;
 * other 4xx are not. Nothing is sent once `signal` is aborted.
 *
 * Its requests go through the guarded fetch (src/net/): a base URL on a loopback or private
 * address (a local model server) is refused, without a try being retried, unless
 * `allowPrivateBaseUrl` says the operator meant it.
 */
export function createProviderClient(config: Pick<LlmConfig, 'apiKey' | 'baseUrl' | 'timeoutMs' | 'maxRetries' | 'allowPrivateBaseUrl'>): ProviderClient {
  let client: OpenAI | null = null;
  const connect = (): OpenAI =>
    new (loadOpenAI().OpenAI)({
      apiKey: config.apiKey ?? NO_KEY,
      ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
      timeout: config.timeoutMs,
      maxRetries: 0,
      fetch: guardedFetchFunction({
        rules: { allowPrivate: config.allowPrivateBaseUrl, privateSetting: 'llm.allowPrivateBaseUrl' },
        limits: { maxBytes: MAX_ANSWER_BYTES, timeoutMs: config.timeoutMs, maxRedirects: MAX_REDIRECTS },
      }),
    });
  return {
    async complete({ model, messages, maxTokens, signal }) {
      let tries = 0;
      let last = 'no request sent';
      while (tries <= config.maxRetries) {
        if (signal?.aborted) throw new ProviderCallError('aborted', `attempt stopped before try ${tries + 1}`, tries);
        tries += 1;
        let failure: TryFailure | 'aborted';
        try {
          const answer = await (client ??= connect()).chat.completions.create({ model, messages, max_tokens: maxTokens }, signal ? { signal } : {});
          const read = readAnswer(answer);
          if (typeof read !== 'string') {
            const inputTokens = read.inputTokens ?? roughTokens(messages.map((m) => m.content).join('\n'));
            return { text: read.text, inputTokens, outputTokens: read.outputTokens ?? roughTokens(read.text), tries };
          }
          failure = { retry: true, reason: read };
        } catch (err) {
          failure = classify(err);
        }
        if (failure === 'aborted') throw new ProviderCallError('aborted', 'attempt stopped during the request', tries);
        last = failure.reason;
        if (!failure.retry) throw new ProviderCallError('rejected', last, tries);
        if (tries > config.maxRetries) break;
        await sleep(failure.waitMs ?? backoffMs(tries), signal);
      }
      throw new ProviderCallError('exhausted', `${last} after ${tries} tr${tries === 1 ? 'y' : 'ies'}`, tries);
    },
  };
}
