import { apiErrorFrom, ApiError } from './errors.js';
import { EventStreamParser, type StreamEvent } from './sse-parser.js';

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'waiting' | 'ended' | 'failed';

export interface FollowStreamOptions {
  token: string;
  onEvent: (event: StreamEvent) => void;
  onState?: (state: StreamState, detail: { error?: unknown; waitMs?: number }) => void;
  signal: AbortSignal;
  /** Resume after this event id (sent as Last-Event-ID). */
  lastEventId?: string | null;
  /** Test seams. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 30_000;

/** Exponential backoff with full jitter between half and the whole step, capped at 30 s. */
export function reconnectDelayMs(failures: number, random: () => number = Math.random): number {
  const step = Math.min(BACKOFF_BASE_MS * 2 ** failures, BACKOFF_MAX_MS);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** How long to wait after a failed attempt: Retry-After for a 429, backoff otherwise. */
export function waitAfter(error: unknown, failures: number, random: () => number = Math.random): number {
  if (error instanceof ApiError && error.status === 429) return (error.retryAfterSeconds ?? 1) * 1000 + Math.floor(random() * 250);
  return reconnectDelayMs(failures, random);
}

/** 4xx answers other than 429 will not change by asking again (bad cursor, unknown run, no role). */
const isFinal = (error: unknown): boolean => error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429;

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Follows an event stream with fetch, so the key travels in the Authorization header and never in
 * a URL (an EventSource cannot set headers). A dropped stream is resumed with the last id seen
 * (Last-Event-ID) after a backoff, a 429 waits for its Retry-After, and the follow ends on
 * `event: end`, on a final 4xx answer, or when the signal aborts.
 */
export async function followStream(path: string, options: FollowStreamOptions): Promise<void> {
  const { signal } = options;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const setState = options.onState ?? (() => undefined);
  let lastEventId = options.lastEventId ?? null;
  let failures = 0;
  while (!signal.aborted) {
    let ended = false;
    try {
      setState(failures === 0 ? 'connecting' : 'reconnecting', {});
      const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${options.token}` };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      // The service answers streams with Cache-Control: no-store; the browser keeps nothing of them.
      const res = await fetch(path, { headers, credentials: 'omit', signal });
      if (!res.ok) {
        const text = await res.text();
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        throw apiErrorFrom(res.status, body, res.headers.get('retry-after'));
      }
      if (!res.body) throw new Error('the event stream answered without a body');
      setState('open', {});
      const parser = new EventStreamParser((event) => {
        // Nothing after `end` belongs to this follow, even when it came in the same chunk.
        if (ended) return;
        failures = 0;
        if (event.id !== null) lastEventId = event.id;
        if (event.event === 'end') ended = true;
        options.onEvent(event);
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        while (!ended) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(value);
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
      if (ended) {
        setState('ended', {});
        return;
      }
      throw new Error('the event stream closed before its end');
    } catch (error) {
      if (signal.aborted) return;
      if (isFinal(error)) {
        setState('failed', { error });
        return;
      }
      const waitMs = waitAfter(error, failures, random);
      failures += 1;
      setState(error instanceof ApiError && error.status === 429 ? 'waiting' : 'reconnecting', { error, waitMs });
      await sleep(waitMs, signal);
    }
  }
}
