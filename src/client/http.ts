import { OrchApiError, OrchNetworkError } from './errors.js';
import { retryBackoffMs, waitAfterRateLimit } from './flow-control.js';

export interface ClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:3000. */
  url: string;
  /** A service key; sent as `Authorization: Bearer`, never in a URL. */
  apiKey: string | null;
  /** How many 429 answers to wait out before giving up (default 20). */
  maxRateLimitWaits?: number;
  /** Retries of idempotent requests after a network error or 502/503/504 (default 3). */
  maxRetries?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told of each wait (a command line shows it on stderr). */
  onWait?: (info: { reason: 'rate-limited' | 'retry'; ms: number; path: string }) => void;
}

export interface RequestOptions {
  body?: unknown;
  /** A list repeats its key (`?tag=a&tag=b`). */
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** GET, HEAD, PUT and DELETE are; a POST is only when the caller says so (it carries an idempotency key). */
  idempotent?: boolean;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface ClientResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const RETRYABLE_STATUS = new Set([502, 503, 504]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The HTTP core of the client library: bearer key in the header, 429 treated as flow control
 * (waits, then sends again, for every method: a refused request did nothing), idempotent
 * requests retried after network errors and gateway answers, every other answer >= 400 turned
 * into an OrchApiError carrying the service's code and request id.
 */
export function createHttp(options: ClientOptions) {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const maxWaits = options.maxRateLimitWaits ?? 20;
  const maxRetries = options.maxRetries ?? 3;

  function urlOf(path: string, query?: RequestOptions['query']): string {
    const url = new URL(base + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
      else if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  function headersFor(request: RequestOptions, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...(request.headers ?? {}) };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (hasBody) headers['content-type'] = 'application/json';
    return headers;
  }

  /** Sends until an answer that is not a 429 (or a retryable failure of an idempotent request). */
  async function send(method: string, path: string, request: RequestOptions = {}): Promise<Response> {
    const url = urlOf(path, request.query);
    const idempotent = request.idempotent ?? ['GET', 'HEAD', 'PUT', 'DELETE'].includes(method);
    const hasBody = request.body !== undefined;
    let waits = 0;
    let retries = 0;
    for (;;) {
      let response: Response;
      try {
        response = await doFetch(url, {
          method,
          headers: headersFor(request, hasBody),
          body: hasBody ? JSON.stringify(request.body) : undefined,
          signal: request.signal,
        });
      } catch (err) {
        if (request.signal?.aborted) throw err;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        // The socket's error code (ECONNREFUSED) when there is one, else what fetch said of it.
        const reason = cause?.code ?? cause?.message ?? (err as Error).message;
        if (!idempotent || retries >= maxRetries) throw new OrchNetworkError(base, reason);
        const ms = retryBackoffMs(retries++, random);
        options.onWait?.({ reason: 'retry', ms, path });
        await sleep(ms);
        continue;
      }
      if (response.status === 429 && waits < maxWaits) {
        waits += 1;
        await response.arrayBuffer().catch(() => undefined);
        const ms = waitAfterRateLimit(response.headers, Date.now(), random);
        options.onWait?.({ reason: 'rate-limited', ms, path });
        await sleep(ms);
        continue;
      }
      if (RETRYABLE_STATUS.has(response.status) && idempotent && retries < maxRetries) {
        await response.arrayBuffer().catch(() => undefined);
        const ms = retryBackoffMs(retries++, random);
        options.onWait?.({ reason: 'retry', ms, path });
        await sleep(ms);
        continue;
      }
      return response;
    }
  }

  async function request<T>(method: string, path: string, request: RequestOptions = {}): Promise<ClientResponse<T>> {
    const response = await send(method, path, request);
    const text = await response.text();
    let body: unknown = null;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (response.status >= 400) throw apiError(response, body);
    return { status: response.status, headers: response.headers, body: body as T };
  }

  return { request, send, urlOf, headersFor, base };
}

export type HttpCore = ReturnType<typeof createHttp>;

/** The service's error shape `{error: {code, message, requestId, details?}}`, or what came instead. */
export function apiError(response: Response, body: unknown): OrchApiError {
  const error = (typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined) as
    | { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown }
    | undefined;
  const requestId = typeof error?.requestId === 'string' ? error.requestId : response.headers.get('x-request-id');
  if (error && typeof error.code === 'string') {
    return new OrchApiError(response.status, error.code, typeof error.message === 'string' ? error.message : response.statusText, requestId, error.details);
  }
  return new OrchApiError(response.status, `http_${response.status}`, typeof body === 'string' && body !== '' ? body.slice(0, 200) : response.statusText, requestId);
}
