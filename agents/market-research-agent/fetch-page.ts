import { DomainError } from '../../src/domain/errors.js';
import { guardedFetch, SYSTEM_NETWORK, type OutboundLimits, type OutboundNetwork } from '../../src/net/guarded-fetch.js';
import { allowlistRefusal } from './allowlist.js';
import { failureReason } from './network-errors.js';
import type { ResearchSettings } from './settings.js';

/** What one URL may cost. Five URLs at 15 s each stay well inside the agent's 180 s timeout. */
export type FetchLimits = OutboundLimits;

export const FETCH_LIMITS: FetchLimits = { maxBytes: 2 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 };

/**
 * The lane's network edges (src/net/guarded-fetch.ts): the resolver of the check, the pinned
 * request, and which addresses count as non-public. Tests inject them.
 */
export type NetworkDeps = OutboundNetwork;

/** Real DNS for the check, requests pinned to the checked addresses, the built-in address tables. */
export const DEFAULT_NETWORK: NetworkDeps = SYSTEM_NETWORK;

export type PageOutcome =
  | { kind: 'fetched'; finalUrl: string; httpStatus: number; contentType: string | null; html: string; truncated: boolean; redirects: string[] }
  | { kind: 'refused'; reason: string; httpStatus: number | null; redirects: string[] }
  | { kind: 'failed'; reason: string; httpStatus: number | null; unreachable: boolean; redirects: string[] };

const READABLE_TYPES = /^(?:text\/html|application\/xhtml\+xml|text\/plain)$/;
const REQUEST_HEADERS = {
  accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5',
  'user-agent': 'task-orchestrator-market-research/0.1 (+allowlisted public pages only)',
};

function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** A failure in the lane's words: a limit the fetch met is said as is, a network failure as an outside dependency. */
function failedReason(error: unknown): { reason: string; unreachable: boolean } {
  return error instanceof DomainError ? { reason: error.message, unreachable: false } : failureReason(error);
}

/**
 * Fetches one page under the lane's policy through the guarded fetch: every hop must be http(s),
 * on the allowlist and resolve only to public addresses (unless the operator allows private
 * hosts), and connects to the addresses its own check vetted. A page longer than the cap is read
 * up to the cap and said to be cut.
 */
export async function fetchPage(raw: string, settings: ResearchSettings, deps: NetworkDeps, limits: FetchLimits = FETCH_LIMITS): Promise<PageOutcome> {
  const outcome = await guardedFetch(
    raw,
    { headers: REQUEST_HEADERS },
    {
      rules: {
        allowPrivate: settings.allowPrivateHosts,
        privateSetting: 'marketResearch.allowPrivateHosts',
        hostRefusal: (host) => allowlistRefusal(host, settings.allowedDomains),
      },
      limits,
      overLimit: 'truncate',
      network: deps,
    },
  );
  const { redirects } = outcome;
  if (outcome.kind === 'refused') {
    const hop = redirects.at(-1);
    const reason = hop === undefined ? outcome.reason : `redirect to ${hop} refused: ${outcome.reason}`;
    return { kind: 'refused', reason, httpStatus: outcome.status, redirects };
  }
  if (outcome.kind === 'failed') return { kind: 'failed', ...failedReason(outcome.error), httpStatus: outcome.status, redirects };
  const { response } = outcome;
  try {
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
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      kind: 'fetched',
      finalUrl: outcome.url.href,
      httpStatus: response.status,
      contentType,
      html: decode(bytes, contentType),
      truncated: outcome.truncated(),
      redirects,
    };
  } catch (error) {
    // The body read is under the same deadline: past it, the read fails as a timeout.
    return { kind: 'failed', ...failureReason(error), httpStatus: response.status, redirects };
  }
}
