import { failureReason } from './network-errors.js';
import type { PinnedRequest } from './pinned-request.js';
import type { ResearchSettings } from './settings.js';
import { checkUrl, type Lookup } from './url-policy.js';

/** What one URL may cost. Five URLs at 15 s each stay well inside the agent's 180 s timeout. */
export interface FetchLimits {
  /** Bytes of body read per page; the rest is not downloaded and the source says it was cut. */
  maxBytes: number;
  /** One deadline for the whole URL: every lookup, redirect hop and the body read. */
  timeoutMs: number;
  maxRedirects: number;
}

export const FETCH_LIMITS: FetchLimits = { maxBytes: 2 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 };

/**
 * The lane's network edges. `lookup` resolves a name once, for the check; `request` sends the
 * request over a connection to one of the addresses that check vetted (see pinned-request.ts)
 * and never resolves the name itself, so what was checked is what is reached.
 */
export interface NetworkDeps {
  lookup: Lookup;
  request: PinnedRequest;
}

export type PageOutcome =
  | { kind: 'fetched'; finalUrl: string; httpStatus: number; contentType: string | null; html: string; truncated: boolean; redirects: string[] }
  | { kind: 'refused'; reason: string; httpStatus: number | null; redirects: string[] }
  | { kind: 'failed'; reason: string; httpStatus: number | null; unreachable: boolean; redirects: string[] };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const READABLE_TYPES = /^(?:text\/html|application\/xhtml\+xml|text\/plain)$/;
const REQUEST_HEADERS = {
  accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5',
  'user-agent': 'task-orchestrator-market-research/0.1 (+allowlisted public pages only)',
};

/** Rejects when `signal` aborts first: DNS lookups ignore abort signals, the deadline must not. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - total));
      total = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    total += value.byteLength;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * Fetches one page under the lane's policy. Redirects are followed by hand so that every hop
 * passes the same checks as the first URL (scheme, allowlist, resolved addresses): a public
 * page redirecting to a private address is refused, not followed. Nothing is sent to a URL
 * that was refused, and each hop connects to an address its own check vetted: the name is
 * resolved once per hop, by the check, so a name that answers differently the second time
 * (DNS rebinding) cannot move the connection elsewhere.
 */
export async function fetchPage(raw: string, settings: ResearchSettings, deps: NetworkDeps, limits: FetchLimits = FETCH_LIMITS): Promise<PageOutcome> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const redirects: string[] = [];
  let current = raw;
  let lastStatus: number | null = null;
  try {
    for (;;) {
      const verdict = await raceSignal(checkUrl(current, settings, deps.lookup), signal);
      if (!verdict.allowed) {
        if (!verdict.refused) return { kind: 'failed', ...failureReason(verdict.error), httpStatus: lastStatus, redirects };
        const reason = redirects.length === 0 ? verdict.reason : `redirect to ${current} refused: ${verdict.reason}`;
        return { kind: 'refused', reason, httpStatus: lastStatus, redirects };
      }
      const response = await deps.request(verdict.url, verdict.addresses, { signal, headers: REQUEST_HEADERS });
      lastStatus = response.status;
      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location) {
        await response.body?.cancel();
        if (redirects.length >= limits.maxRedirects) {
          return { kind: 'failed', reason: `more than ${limits.maxRedirects} redirects`, httpStatus: lastStatus, unreachable: false, redirects };
        }
        current = new URL(location, verdict.url).href;
        redirects.push(current);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        const text = response.statusText ? ` ${response.statusText}` : '';
        return { kind: 'failed', reason: `HTTP ${response.status}${text}`, httpStatus: response.status, unreachable: false, redirects };
      }
      const contentType = response.headers.get('content-type');
      const mediaType = (contentType ?? 'text/html').split(';')[0]!.trim().toLowerCase();
      if (!READABLE_TYPES.test(mediaType)) {
        await response.body?.cancel();
        return { kind: 'failed', reason: `content type ${mediaType} is not a readable page`, httpStatus: response.status, unreachable: false, redirects };
      }
      const { bytes, truncated } = await readCapped(response, limits.maxBytes);
      return {
        kind: 'fetched',
        finalUrl: verdict.url.href,
        httpStatus: response.status,
        contentType,
        html: decode(bytes, contentType),
        truncated,
        redirects,
      };
    }
  } catch (error) {
    // Past the deadline, whatever the aborted step threw (an abort, a reset socket) is a timeout.
    return { kind: 'failed', ...failureReason(signal.aborted ? signal.reason : error), httpStatus: lastStatus, redirects };
  }
}
