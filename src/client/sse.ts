import { apiError, type HttpCore } from './http.js';
import { retryBackoffMs } from './flow-control.js';
import { EventStreamParser, type StreamEvent } from './sse-parser.js';

export { EventStreamParser, type StreamEvent };

export interface FollowOptions {
  /** Resume after this event (sent as `Last-Event-ID`). */
  lastEventId?: string | null;
  signal?: AbortSignal;
  /** Reconnections after a dropped stream before giving up (default 10; reset by each event). */
  maxReconnects?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onReconnect?: (attempt: number, lastEventId: string | null) => void;
}

/**
 * Follows an event stream until the service sends `event: end` (resolves) or the signal aborts.
 * A dropped connection is resumed with `Last-Event-ID` so no event is missed or repeated; the
 * 429 and error answers of the first request go through the client's flow control and errors.
 */
export async function followEventStream(http: HttpCore, path: string, onEvent: (event: StreamEvent) => void, options: FollowOptions = {}): Promise<void> {
  let lastEventId = options.lastEventId ?? null;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = options.random ?? Math.random;
  const maxReconnects = options.maxReconnects ?? 10;
  let reconnects = 0;
  for (;;) {
    let ended = false;
    try {
      const response = await http.send('GET', path, {
        signal: options.signal,
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      });
      if (response.status >= 400) {
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        throw apiError(response, body);
      }
      if (!response.body) return;
      const parser = new EventStreamParser((event) => {
        reconnects = 0;
        if (event.id !== null) lastEventId = event.id;
        if (event.event === 'end') ended = true;
        onEvent(event);
      });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      while (!ended) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
      if (ended) {
        await reader.cancel().catch(() => undefined);
        return;
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if ((err as { name?: string }).name === 'OrchApiError') throw err;
      if (reconnects >= maxReconnects) throw err;
    }
    if (options.signal?.aborted) return;
    if (reconnects >= maxReconnects) throw new Error(`the event stream ${path} kept closing before its end`);
    options.onReconnect?.(reconnects + 1, lastEventId);
    await sleep(retryBackoffMs(reconnects++, random));
  }
}
