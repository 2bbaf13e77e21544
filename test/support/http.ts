import { TEST_KEYS } from './keys.js';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Small JSON client over global fetch for tests against a running service. */
export function apiClient(baseUrl: string) {
  async function call<T>(method: string, path: string, key: string | null, body?: unknown): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // non-JSON body stays text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
  return {
    get: <T = any>(path: string, key: string | null = TEST_KEYS.viewer) => call<T>('GET', path, key),
    post: <T = any>(path: string, body: unknown, key: string | null = TEST_KEYS.operator) => call<T>('POST', path, key, body),
    patch: <T = any>(path: string, body: unknown, key: string | null = TEST_KEYS.operator) => call<T>('PATCH', path, key, body),
    delete: <T = any>(path: string, key: string | null = TEST_KEYS.operator) => call<T>('DELETE', path, key),
    trigger: <T = any>(type: string, payload: Record<string, unknown> = {}, key: string = TEST_KEYS.operator) =>
      call<T>('POST', '/api/tasks/trigger', key, { type, payload }),
    run: <T = any>(runId: string) => call<T>('GET', `/api/tasks/runs/${encodeURIComponent(runId)}`, TEST_KEYS.viewer),
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export const TERMINAL = new Set(['success', 'failed', 'cancelled']);

/** Waits until the run is in a terminal status (success, failed or cancelled) and returns its record. */
export async function waitForTerminal(api: ReturnType<typeof apiClient>, runId: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const res = await api.run(runId);
      return res.status === 200 && TERMINAL.has(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
    `run ${runId} to finish`,
  );
}

/**
 * A response body parsed as JSON, typed loosely: tests inspect bodies field by field and assert
 * their shape with expect(), so a static type per body would only restate the assertions.
 */
export type JsonBody = any;

/** The body of a fetch Response, parsed as JSON. */
export async function readJson(res: Response): Promise<JsonBody> {
  return res.json();
}

/**
 * The body as text. An event stream does not end by itself: it is read for `streamMs`, then
 * the client leaves (what arrived by then is returned), so a walker over every route can call
 * the streaming ones too.
 */
export async function bodyText(res: Response, streamMs = 300): Promise<string> {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || res.body === null) return res.text();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), streamMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The stream was left while a read was pending: what arrived is the answer.
  } finally {
    clearTimeout(timer);
  }
  return text;
}
