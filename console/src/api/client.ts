import { apiErrorFrom } from './errors.js';

export interface ApiResponse<T> {
  status: number;
  body: T;
}

export interface RequestOptions {
  /** Bearer token; public proof reads send none. */
  token?: string | null;
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** An approval link's secret, sent as X-Approval-Link instead of a bearer token. */
  approvalLink?: string;
}

/**
 * One call to the service on the console's own origin. Answers are never taken from the
 * browser's HTTP cache (the service invalidates its own cache on every write), and a non-2xx
 * answer throws an ApiError carrying the service's code, message, request id and details.
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.approvalLink) headers['x-approval-link'] = options.approvalLink;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    cache: 'no-store',
    credentials: 'omit',
    signal: options.signal,
  });
  const text = await res.text();
  let parsed: unknown = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!res.ok) throw apiErrorFrom(res.status, parsed, res.headers.get('retry-after'));
  return { status: res.status, body: parsed as T };
}
