import { isIP } from 'node:net';
import { normalizeHost } from '../../src/net/host-name.js';
import { allowlistEntryFor, KNOWN_DOMAINS } from './allowlist.js';

/** One allowlisted domain worth reading for a query, with where to start. */
export interface PlannedSource {
  domain: string;
  /** URLs to pass back as `urls` in a follow-up run; all on the allowlisted domain. */
  suggestedUrls: string[];
  /** The query words that made the domain fit; empty for a general reference. */
  matchedTerms: string[];
  rationale: string;
}

export const MAX_PLANNED_SOURCES = 6;

const PRICING_WORDS = new Set(['price', 'prices', 'pricing', 'cost', 'costs', 'plan', 'plans', 'subscription', 'subscriptions', 'fee', 'fees', 'tier', 'tiers']);

/** Lower-cased words of the query and scope, keeping "node.js" and "c#" whole. */
export function queryTerms(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.+#-]*/gu) ?? [])].map((t) => t.replace(/[.-]+$/, ''));
}

function searchUrl(domain: string, path: string, searchText: string): string {
  return `https://${domain}${path.replace('{q}', encodeURIComponent(searchText))}`;
}

/**
 * Derives which allowlisted domains to read for a query. A built-in domain fits when the query
 * names one of its subjects; any other allowlisted domain fits when the query names it ("acme"
 * for acme.com). Pricing words add the domain's pricing pages. When nothing fits, the general
 * references on the allowlist are offered. Only allowlisted domains are ever planned, so every
 * suggested URL would pass the lane's own policy.
 */
export function deriveSourcePlan(searchText: string, allowedDomains: readonly string[]): PlannedSource[] {
  const terms = queryTerms(searchText);
  if (terms.length === 0) return [];
  const wantsPricing = terms.some((t) => PRICING_WORDS.has(t));
  const scored: Array<PlannedSource & { score: number; order: number }> = [];

  KNOWN_DOMAINS.forEach((known, order) => {
    if (allowlistEntryFor(known.domain, allowedDomains) === null) return;
    const matchedTerms = terms.filter((t) => known.topics.includes(t));
    if (matchedTerms.length === 0) return;
    const suggestedUrls = [
      ...(wantsPricing ? known.staticPaths.map((path) => `https://${known.domain}${path}`) : []),
      ...(known.searchPath ? [searchUrl(known.domain, known.searchPath, searchText)] : []),
      ...(!wantsPricing && !known.searchPath ? known.staticPaths.map((path) => `https://${known.domain}${path}`) : []),
    ];
    if (suggestedUrls.length === 0) return;
    scored.push({ domain: known.domain, suggestedUrls, matchedTerms, rationale: `covers ${matchedTerms.join(', ')}`, score: matchedTerms.length, order });
  });

  allowedDomains.forEach((raw, index) => {
    const domain = normalizeHost(raw);
    if (domain === '' || isIP(domain) !== 0 || KNOWN_DOMAINS.some((k) => k.domain === domain)) return;
    const labels = domain.split('.').slice(0, -1);
    const matchedTerms = terms.filter((t) => labels.includes(t));
    if (matchedTerms.length === 0) return;
    scored.push({
      domain,
      suggestedUrls: [`https://${domain}/`, ...(wantsPricing ? [`https://${domain}/pricing`] : [])],
      matchedTerms,
      rationale: `the query names ${domain}`,
      score: matchedTerms.length + 1,
      order: KNOWN_DOMAINS.length + index,
    });
  });

  if (scored.length === 0) {
    KNOWN_DOMAINS.forEach((known, order) => {
      if (!known.general || !known.searchPath || allowlistEntryFor(known.domain, allowedDomains) === null) return;
      scored.push({
        domain: known.domain,
        suggestedUrls: [searchUrl(known.domain, known.searchPath, searchText)],
        matchedTerms: [],
        rationale: 'general reference: no allowlisted domain covers the query terms',
        score: 0,
        order,
      });
    });
  }

  return scored
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_PLANNED_SOURCES)
    .map(({ domain, suggestedUrls, matchedTerms, rationale }) => ({ domain, suggestedUrls, matchedTerms, rationale }));
}
