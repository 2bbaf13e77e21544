import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult, type SpecialistStatus } from '../../src/worker-sdk/lane-result.js';
import type { PageDate } from './extract-dates.js';
import { extractPage, type Heading } from './extract-page.js';
import type { Price } from './extract-prices.js';
import { DEFAULT_NETWORK, FETCH_LIMITS, fetchPage, type FetchLimits, type NetworkDeps, type PageOutcome } from './fetch-page.js';
import { readSettings, type ResearchSettings } from './settings.js';
import { deriveSourcePlan, type PlannedSource } from './source-plan.js';

/** URLs one run fetches; further URLs are listed as refused, never fetched. */
export const MAX_URLS = 5;

export type SourceStatus = 'fetched' | 'refused' | 'failed';

export type Source = {
  url: string;
  status: SourceStatus;
  httpStatus: number | null;
  title: string | null;
  headings: Heading[];
  prices: Price[];
  dates: PageDate[];
  reason?: string;
  /** Where the page was finally read, after redirects. */
  finalUrl?: string;
  redirects: string[];
  /** The body was longer than the size cap; facts come from its first part only. */
  truncated?: boolean;
};

export type MarketResearchResult = LaneResult<{
  query: string | null;
  scope: string | null;
  sources: Source[];
  sourcePlan: PlannedSource[];
  fetchedCount: number;
  refusedCount: number;
  failedCount: number;
  policy: {
    allowPrivateHosts: boolean;
    allowedDomains: string[];
    settingsFrom: ResearchSettings['origin'];
    maxUrls: number;
    maxBytesPerPage: number;
    timeoutMsPerUrl: number;
    maxRedirects: number;
  };
  error?: string;
}>;

const IDENTITY = { role: 'market-research-agent', workflowStage: 'research', deliverable: 'cited source facts and source plan' };

interface ResearchInput {
  urls: string[];
  query: string | null;
  scope: string | null;
}

/** A free-text hint: trimmed, and null when absent or blank. */
function optionalText(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/**
 * The payload in working form. Field types are the schema's (checked by the worker SDK); what is
 * left to refuse is a payload with nothing to research: no URL, query or scope, which the
 * schema cannot say because each of them alone is optional.
 */
function readInput(payload: LanePayload<'market-research'>): ResearchInput | { problem: string } {
  const query = optionalText(payload.query);
  const scope = optionalText(payload.scope);
  const list = [...new Set((payload.urls ?? []).map((u) => u.trim()).filter((u) => u !== ''))];
  if (list.length === 0 && query === null && scope === null) {
    return { problem: 'payload needs urls to fetch, or a query or scope to derive a source plan from' };
  }
  return { urls: list, query, scope };
}

function sourceOf(url: string, outcome: PageOutcome): Source {
  const empty = { title: null, headings: [], prices: [], dates: [] };
  if (outcome.kind === 'fetched') {
    return {
      url,
      status: 'fetched',
      httpStatus: outcome.httpStatus,
      ...extractPage(outcome.html),
      ...(outcome.finalUrl !== url ? { finalUrl: outcome.finalUrl } : {}),
      redirects: outcome.redirects,
      ...(outcome.truncated ? { truncated: true } : {}),
    };
  }
  return { url, status: outcome.kind, httpStatus: outcome.httpStatus, ...empty, reason: outcome.reason, redirects: outcome.redirects };
}

function overLimit(url: string): Source {
  return {
    url,
    status: 'refused',
    httpStatus: null,
    title: null,
    headings: [],
    prices: [],
    dates: [],
    reason: `beyond the ${MAX_URLS}-URL limit of one run; not fetched`,
    redirects: [],
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function listReasons(sources: Source[]): string {
  return sources.map((s) => `${s.url}: ${s.reason ?? s.status}`).join('; ');
}

function nextActions(sources: Source[], plan: PlannedSource[], settings: ResearchSettings): string[] {
  const actions: string[] = [];
  const reasons = sources.map((s) => s.reason ?? '');
  if (reasons.some((r) => r.includes('allowPrivateHosts'))) {
    actions.push('Private and loopback hosts stay refused unless the operator sets marketResearch.allowPrivateHosts; use a public URL instead.');
  }
  if (reasons.some((r) => r.includes('outside the allowlist'))) {
    actions.push(`Use URLs on an allowlisted domain (${settings.allowedDomains.join(', ')}) or ask the operator to allow the domain.`);
  }
  if (reasons.some((r) => r.startsWith('externally dependent'))) {
    actions.push('This lane depends on outside sites: retry when outbound network access to the allowlisted domains is available.');
  }
  if (reasons.some((r) => r.startsWith('beyond the'))) {
    actions.push(`Send the remaining URLs in another run; one run fetches at most ${MAX_URLS}.`);
  }
  if (sources.some((s) => s.prices.length > 0)) {
    actions.push('Check each price on its page before quoting it: pages change and the lane reports them as read now.');
  }
  if (plan.length > 0) {
    actions.push(`Trigger market-research again with urls chosen from the sourcePlan (at most ${MAX_URLS}) to read those pages.`);
  }
  return actions.length > 0 ? actions : ['Review the extracted titles, headings, prices and dates with their source URLs.'];
}

function contractFor(sources: Source[], fetched: number, planOnly: boolean, plan: PlannedSource[]): {
  success: boolean;
  status: SpecialistStatus;
  reason: string | null;
} {
  if (planOnly) {
    return plan.length > 0
      ? { success: true, status: 'completed', reason: null }
      : { success: false, status: 'refused', reason: 'no allowlisted domain fits the query or scope, so no source plan could be derived' };
  }
  if (fetched === sources.length) return { success: true, status: 'completed', reason: null };
  if (fetched > 0) return { success: true, status: 'partial', reason: null };
  const failed = sources.filter((s) => s.status === 'failed');
  if (failed.length > 0) return { success: false, status: 'escalated', reason: `no source could be fetched: ${listReasons(sources)}` };
  return { success: false, status: 'refused', reason: `every URL was refused and none was fetched: ${listReasons(sources)}` };
}

function summaryOf(input: ResearchInput, sources: Source[], plan: PlannedSource[], counts: { fetched: number; refused: number; failed: number }): string {
  if (input.urls.length === 0) {
    return plan.length > 0
      ? `Nothing was fetched: derived a source plan of ${plural(plan.length, 'allowlisted domain')} (${plan.map((p) => p.domain).join(', ')}) for "${input.query ?? input.scope}".`
      : `Nothing was fetched and no allowlisted domain fits "${input.query ?? input.scope}".`;
  }
  const facts = sources.reduce((sum, s) => sum + s.prices.length, 0);
  const dates = sources.reduce((sum, s) => sum + s.dates.length, 0);
  const parts = [`Fetched ${counts.fetched} of ${plural(sources.length, 'URL')}`];
  if (counts.refused > 0) parts.push(`${counts.refused} refused`);
  if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  const found = counts.fetched > 0 ? `; found ${plural(facts, 'price')} and ${plural(dates, 'date')}` : '';
  const planned = plan.length > 0 ? `; planned ${plural(plan.length, 'further domain')}` : '';
  return `${parts.join(', ')}${found}${planned}.`;
}

/**
 * The market-research lane with its network edges given: `deps` resolves names and fetches,
 * `limits` bounds each URL. Explicit URLs are fetched under the policy (see fetch-page.ts and
 * src/net/guarded-fetch.ts); query and scope hints yield a source plan of allowlisted domains. The run
 * succeeds when at least one URL was read, or, without URLs, when the plan is not empty.
 */
export async function runMarketResearch(
  payload: LanePayload<'market-research'>,
  deps: NetworkDeps = DEFAULT_NETWORK,
  limits: FetchLimits = FETCH_LIMITS,
): Promise<MarketResearchResult | LaneRefusal> {
  const input = readInput(payload);
  if ('problem' in input) {
    return refuseLane(IDENTITY, input.problem, [
      'Resend the task with urls (at most 5 http(s) URLs on allowlisted domains), or a query or scope to plan sources from.',
    ]);
  }
  const settings = readSettings(payload);
  const toFetch = input.urls.slice(0, MAX_URLS);
  const outcomes = await Promise.all(toFetch.map((url) => fetchPage(url, settings, deps, limits)));
  const sources = [...toFetch.map((url, i) => sourceOf(url, outcomes[i]!)), ...input.urls.slice(MAX_URLS).map(overLimit)];
  const searchText = [input.query, input.scope].filter((t): t is string => t !== null).join(' ');
  const sourcePlan = searchText === '' ? [] : deriveSourcePlan(searchText, settings.allowedDomains);

  const counts = {
    fetched: sources.filter((s) => s.status === 'fetched').length,
    refused: sources.filter((s) => s.status === 'refused').length,
    failed: sources.filter((s) => s.status === 'failed').length,
  };
  const verdict = contractFor(sources, counts.fetched, input.urls.length === 0, sourcePlan);
  const contract = specialistContract({
    ...IDENTITY,
    status: verdict.status,
    refusalReason: verdict.status === 'refused' ? verdict.reason : null,
    escalationReason: verdict.status === 'escalated' ? verdict.reason : null,
  });
  return {
    success: verdict.success,
    operatorSummary: verdict.success || verdict.reason === null ? summaryOf(input, sources, sourcePlan, counts) : `${verdict.status === 'refused' ? 'Refused' : 'Failed'}: ${verdict.reason}`,
    recommendedNextActions: nextActions(sources, sourcePlan, settings),
    specialistContract: contract,
    query: input.query,
    scope: input.scope,
    sources,
    sourcePlan,
    fetchedCount: counts.fetched,
    refusedCount: counts.refused,
    failedCount: counts.failed,
    policy: {
      allowPrivateHosts: settings.allowPrivateHosts,
      allowedDomains: [...settings.allowedDomains],
      settingsFrom: settings.origin,
      maxUrls: MAX_URLS,
      maxBytesPerPage: limits.maxBytes,
      timeoutMsPerUrl: limits.timeoutMs,
      maxRedirects: limits.maxRedirects,
    },
    ...(verdict.reason !== null && !verdict.success ? { error: verdict.reason } : {}),
  };
}

/** The market-research lane as the worker runs it: real DNS, requests pinned to the checked addresses. */
export function marketResearch(payload: LanePayload<'market-research'>, _context: LaneContext): Promise<MarketResearchResult | LaneRefusal> {
  return runMarketResearch(payload);
}
