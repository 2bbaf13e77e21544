import { promises as dns } from 'node:dns';
import { DomainError } from '../domain/errors.js';
import { nonPublicKind, type AddressPolicy } from './address-policy.js';
import { capBody, type OverLimit } from './capped-body.js';
import { checkDestination, type DestinationRules, type Lookup } from './destination-check.js';
import { pinnedRequest, type PinnedRequest } from './pinned-request.js';

/** What one fetch may cost. */
export interface OutboundLimits {
  /** Bytes of body delivered at most (see `overLimit`). */
  maxBytes: number;
  /** One deadline for the whole fetch: every lookup, every redirect hop and the body read. */
  timeoutMs: number;
  maxRedirects: number;
}

/**
 * The network edges of a fetch. `lookup` resolves a name once, for the check; `request` sends
 * the request over a connection to one of the addresses that check vetted and never resolves
 * the name itself, so what was checked is what is reached. `addressKind` says which addresses
 * are not public (the built-in tables by default); tests inject all three.
 */
export interface OutboundNetwork {
  lookup: Lookup;
  request: PinnedRequest;
  addressKind?: AddressPolicy;
}

/** The system resolver (read when called, so a test's resolver applies) and pinned node:http(s). */
export const SYSTEM_NETWORK: OutboundNetwork = {
  lookup: (host) => dns.lookup(host, { all: true }),
  request: pinnedRequest,
};

export interface OutboundRequest {
  /** GET when absent. */
  method?: string;
  headers?: Readonly<Record<string, string>>;
  body?: Uint8Array | string | null;
  /** The caller's own end (a run's cancel, a client library's abort); the deadline is added to it. */
  signal?: AbortSignal;
}

export interface GuardedFetchOptions {
  rules: DestinationRules;
  limits: OutboundLimits;
  /** A body over `limits.maxBytes` fails its read ('fail', the default) or ends at the cap ('truncate'). */
  overLimit?: OverLimit;
  network?: OutboundNetwork;
}

/**
 * How a guarded fetch ended. `redirects` lists the hops followed; a refusal at a hop refuses its
 * URL, the last of them. `status` is the last answer's before a refusal or failure.
 */
export type GuardedOutcome =
  | { kind: 'response'; response: Response; url: URL; redirects: string[]; truncated: () => boolean }
  | { kind: 'refused'; reason: string; status: number | null; redirects: string[] }
  | { kind: 'failed'; error: unknown; status: number | null; redirects: string[] };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry a credential of the first origin: not sent on to another one. */
const ORIGIN_CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization'];

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

/** One hop's request, as the next hop sends it. */
interface Hop {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * The request a redirect leads to, as fetch sends it: a 303 (and a 301 or 302 after a POST)
 * becomes a GET without the body; a hop to another origin loses the first origin's credentials.
 */
function followed(hop: Hop, status: number, from: URL, to: URL): Hop {
  const headers = { ...hop.headers };
  let { method, body } = hop;
  if ((status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = null;
    for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) delete headers[name];
  }
  if (to.origin !== from.origin) for (const name of ORIGIN_CREDENTIALS) delete headers[name];
  return { method, headers, body };
}

/**
 * The one way the service and its lanes fetch from outside (feeds, market-research pages, the
 * digest target, the model provider). Each hop's URL is checked before anything is sent to it
 * (destination-check.ts: scheme, credentials, non-public addresses unless the consumer's setting
 * allows them, the consumer's own host check); the name is resolved once, by that check, and
 * the connection is pinned to the addresses it vetted (pinned-request.ts), so a name that
 * answers differently the second time (DNS rebinding) cannot move the connection elsewhere.
 * Redirects are followed by hand, each hop checked the same way, at most `maxRedirects`. One
 * deadline covers the whole fetch, the body included, and the body is capped. A refusal or a
 * failure is an outcome, never a throw.
 */
export async function guardedFetch(raw: string, request: OutboundRequest, options: GuardedFetchOptions): Promise<GuardedOutcome> {
  const { rules, limits, overLimit = 'fail', network = SYSTEM_NETWORK } = options;
  const addressKind = network.addressKind ?? nonPublicKind;
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  const body = typeof request.body === 'string' ? new TextEncoder().encode(request.body) : (request.body ?? null);
  let hop: Hop = { method: (request.method ?? 'GET').toUpperCase(), headers: lowerCased(request.headers ?? {}), body };
  const redirects: string[] = [];
  let current = raw;
  let status: number | null = null;
  try {
    for (;;) {
      const verdict = await raceSignal(checkDestination(current, rules, network.lookup, addressKind), signal);
      if (!verdict.allowed) {
        if (verdict.refused) return { kind: 'refused', reason: verdict.reason, status, redirects };
        return { kind: 'failed', error: verdict.error, status, redirects };
      }
      const response = await network.request(verdict.url, verdict.addresses, { ...hop, signal });
      status = response.status;
      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location) {
        await response.body?.cancel();
        if (redirects.length >= limits.maxRedirects) {
          return { kind: 'failed', error: new DomainError('upstream_error', `more than ${limits.maxRedirects} redirects`), status, redirects };
        }
        const next = new URL(location, verdict.url);
        hop = followed(hop, response.status, verdict.url, next);
        current = next.href;
        redirects.push(current);
        continue;
      }
      const capped = capBody(response, limits.maxBytes, overLimit, signal);
      return { kind: 'response', response: capped.response, url: verdict.url, redirects, truncated: capped.truncated };
    }
  } catch (error) {
    // Past the deadline, whatever the aborted step threw (an abort, a reset socket) is the abort.
    return { kind: 'failed', error: signal.aborted ? signal.reason : error, status, redirects };
  }
}
