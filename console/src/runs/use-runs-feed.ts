import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import type { RunEventData, RunListAnswer } from '../api/types.js';
import { useEventStream } from '../api/use-event-stream.js';
import type { StreamEvent } from '../api/sse-parser.js';
import { toQueryString } from '../lib/query-string.js';
import { isAwaitingApproval } from './held.js';

const REFETCH_DELAY_MS = 400;

/**
 * Keeps the runs list live from GET /api/events: a run already on the page gets its new status
 * in place at once (no refetch, no reflow); a run the page does not hold refreshes the first page
 * and the counts, coalesced, so a burst of admissions costs one read. Later pages (a cursor) are
 * fixed windows: their rows change status but no row enters or leaves. With a creation range
 * (`since`, epoch ms), an event about a run the page does not hold and that happened before the
 * range began cannot concern a run in the range (a run is created before its events), so it
 * costs no read; runs in the range arrive through the refetch, which the service filters.
 */
export function useRunsFeed(options: { listKey: QueryKey; countsKey: QueryKey; firstPage: boolean; type: string; status: string; since: number | null }) {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const { listKey, countsKey, firstPage, status, since } = options;

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );

  const scheduleRefetch = useCallback(
    (list: boolean) => {
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        if (list) void queryClient.invalidateQueries({ queryKey: listKey, exact: true });
        void queryClient.invalidateQueries({ queryKey: countsKey });
      }, REFETCH_DELAY_MS);
    },
    [queryClient, listKey, countsKey],
  );

  const onEvent = useCallback(
    (event: StreamEvent) => {
      if (event.event !== 'run') return;
      let data: RunEventData;
      try {
        data = JSON.parse(event.data) as RunEventData;
      } catch {
        return;
      }
      let onPage = false;
      let wasHeld = false;
      queryClient.setQueryData<RunListAnswer>(listKey, (page) => {
        if (!page) return page;
        const index = page.items.findIndex((r) => r.runId === data.runId);
        if (index < 0) return page;
        onPage = true;
        const current = page.items[index]!;
        wasHeld = isAwaitingApproval(current);
        if (current.status === data.status && current.updatedAt >= data.at) return page;
        const items = [...page.items];
        items[index] = { ...current, status: data.status as typeof current.status, updatedAt: data.at > current.updatedAt ? data.at : current.updatedAt };
        return { ...page, items };
      });
      if (!onPage && since !== null && Date.parse(data.at) < since) return;
      // A new run or a row that left the filtered status changes the first page; a row that
      // finished gets its finish time and duration. Reading a cursor page again gives the same rows.
      const finished = data.status === 'success' || data.status === 'failed' || data.status === 'cancelled';
      // A held run's decision keeps its status (`pending`) but ends the hold, which only a read shows.
      scheduleRefetch((onPage && (finished || wasHeld)) || (firstPage && (!onPage || (status !== '' && data.status !== status))));
    },
    [queryClient, listKey, firstPage, status, since, scheduleRefetch],
  );

  return useEventStream(`/api/events${toQueryString({ type: options.type })}`, onEvent);
}
