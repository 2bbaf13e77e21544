import type { apiClient, JsonResponse } from './http.js';

interface RunsPage {
  items: { runId: string }[];
  nextCursor?: string | null;
}

/** Every run id the service lists, page by page (cursor paging, stable while runs arrive). */
export async function listAllRunIds(api: ReturnType<typeof apiClient>): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  for (;;) {
    const query: URLSearchParams = new URLSearchParams({ limit: '200', includeInternal: 'true', ...(cursor ? { cursor } : {}) });
    const res: JsonResponse<RunsPage> = await api.get<RunsPage>(`/api/tasks/runs?${query.toString()}`);
    if (res.status !== 200) throw new Error(`GET /api/tasks/runs answered ${res.status}: ${JSON.stringify(res.body)}`);
    for (const item of res.body.items) ids.add(item.runId);
    cursor = res.body.nextCursor ?? null;
    if (!cursor || res.body.items.length === 0) return ids;
  }
}
