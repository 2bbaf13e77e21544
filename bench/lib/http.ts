import { assertLoopback } from './loopback.js';

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** A JSON request to a loopback target with a timeout. The body is parsed when it is JSON. */
export async function requestJson<T = unknown>(
  url: string,
  init: { method?: string; key?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<JsonResponse<T>> {
  assertLoopback(url);
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: body as T };
}
