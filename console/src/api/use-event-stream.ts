import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useSession } from '../auth/session.js';
import { followStream, type StreamState } from './event-stream.js';
import type { StreamEvent } from './sse-parser.js';

export interface EventStreamStatus {
  state: StreamState | 'idle';
  /** The last failure (a dropped connection, a 429, a refused request). */
  error: unknown;
  /** How long the stream waits before the next try, when it waits. */
  waitMs: number | null;
}

/**
 * Follows a text/event-stream route for as long as the component is mounted and `path` is set,
 * with the session's key in the Authorization header; resumes with Last-Event-ID after a drop.
 * `onEvent` may change between renders without reopening the stream.
 */
export function useEventStream(path: string | null, onEvent: (event: StreamEvent) => void): EventStreamStatus {
  const { token } = useSession();
  const handler = useRef(onEvent);
  useLayoutEffect(() => {
    handler.current = onEvent;
  });
  const [status, setStatus] = useState<EventStreamStatus>({ state: 'idle', error: null, waitMs: null });

  useEffect(() => {
    if (path === null || token === null) return;
    const controller = new AbortController();
    void followStream(path, {
      token,
      signal: controller.signal,
      onEvent: (event) => handler.current(event),
      onState: (state, detail) => {
        if (controller.signal.aborted) return;
        setStatus({ state, error: detail.error ?? null, waitMs: detail.waitMs ?? null });
      },
    });
    return () => controller.abort();
  }, [path, token]);

  return status;
}
