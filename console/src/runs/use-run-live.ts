import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunEventData, RunLogLine } from '../api/types.js';
import { useEventStream, type EventStreamStatus } from '../api/use-event-stream.js';
import type { StreamEvent } from '../api/sse-parser.js';
import { segment } from '../lib/query-string.js';

const MAX_LIVE_LINES = 5000;
const REFRESH_DELAY_MS = 150;

export interface RunLive {
  events: RunEventData[];
  lines: RunLogLine[];
  ended: boolean;
  stream: EventStreamStatus;
}

function parse<T>(data: string): T | null {
  try {
    return JSON.parse(data) as T;
  } catch {
    return null;
  }
}

/**
 * Follows one run's event stream: its events (stored, then live), its live log lines, and its
 * end. Each event refreshes the run's record (coalesced), so the page shows the new state
 * without a reload; the stream resumes with Last-Event-ID after a drop and so repeats nothing.
 */
export function useRunLive(runId: string): RunLive {
  const queryClient = useQueryClient();
  const [events, setEvents] = useState<RunEventData[]>([]);
  const [lines, setLines] = useState<RunLogLine[]>([]);
  const [ended, setEnded] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const runPath = `/api/tasks/runs/${segment(runId)}`;

  useEffect(() => {
    setEvents([]);
    setLines([]);
    setEnded(false);
    return () => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [runId]);

  const refresh = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void queryClient.invalidateQueries({ queryKey: ['api', runPath] });
    }, REFRESH_DELAY_MS);
  }, [queryClient, runPath]);

  const onEvent = useCallback(
    (event: StreamEvent) => {
      if (event.event === 'run') {
        const data = parse<RunEventData>(event.data);
        if (!data) return;
        setEvents((list) => (list.some((e) => e.seq === data.seq) ? list : [...list, data].sort((a, b) => a.seq - b.seq)));
        refresh();
      } else if (event.event === 'log') {
        const line = parse<RunLogLine>(event.data);
        if (line) setLines((list) => (list.length >= MAX_LIVE_LINES ? [...list.slice(-MAX_LIVE_LINES + 1), line] : [...list, line]));
      } else if (event.event === 'end') {
        setEnded(true);
        refresh();
        void queryClient.invalidateQueries({ queryKey: ['api', `${runPath}/logs`] });
      }
    },
    [refresh, queryClient, runPath],
  );

  const stream = useEventStream(runId ? `${runPath}/events` : null, onEvent);
  return { events, lines, ended, stream };
}
