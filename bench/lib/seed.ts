import { runLoad, type LoadSummary } from './load.js';
import { OPERATOR_KEY } from './service.js';

/**
 * Seeds up to `count` doc-sync runs (unique keys `<tag>-<i>`) over HTTP; returns the load
 * summary and the run ids the service admitted (202).
 */
export async function seedRuns(
  url: string,
  tag: string,
  count: number,
  maxMs: number,
  connections = 50,
): Promise<{ summary: LoadSummary; runIds: string[] }> {
  let counter = 0;
  const runIds: string[] = [];
  const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${tag}-${counter++}` } });
  const summary = await runLoad({
    title: `seed ${count}`,
    url,
    connections,
    amount: count,
    maxMs,
    method: 'POST',
    path: '/api/tasks/trigger',
    headers: { authorization: `Bearer ${OPERATOR_KEY}` },
    body: body(),
    setup: () => ({ body: body() }),
    onResponse: (status, text) => {
      if (status !== 202) return;
      try {
        const runId = (JSON.parse(text) as { runId?: unknown }).runId;
        if (typeof runId === 'string') runIds.push(runId);
      } catch {
        // not JSON: not an admission
      }
    },
  });
  return { summary, runIds };
}
