import { DomainError } from '../../domain/errors.js';
import { join } from 'node:path';
import type { AppConfig } from '../../config/types.js';
import { displayPath } from '../../common/display-path.js';
import { configuredPathProblem } from '../../workspace/configured-folder.js';
import { appendFileNoFollow } from '../../workspace/file-writes.js';
import type { HandlerInput, StateHandler } from '../../runtime/handler-types.js';
import type { RSSRecord } from '../../domain/orchestrator-state.js';
import type { ParsedFeed } from './feed-parser.js';
import { configurationRefusal, failure } from '../shared/handler-outcome.js';
import { guardedFetch } from '../../net/guarded-fetch.js';
import { describeFetchError, outboundLimits, responseOf } from '../shared/outbound.js';
import { scoreEntry } from './relevance.js';
import { DEFAULT_MAX_ITEMS_PER_FEED, loadRssConfig, RSS_CONFIG_MISSING, rssConfigProblems, unusableRssConfig, type RssConfig } from './rss-config.js';

/** A feed larger than this is refused instead of being buffered. */
const MAX_FEED_BYTES = 5 * 1024 * 1024;

export interface FeedError {
  feedUrl: string;
  error: string;
}

/** The URL as shown in results and errors: credentials in it are not repeated. */
function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return raw;
  }
}

const FEED_HEADERS = {
  accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
  'user-agent': 'task-orchestrator-rss-sweep',
};

/**
 * One feed through the guarded fetch: a feed (or a redirect hop) on a loopback or private
 * address is refused unless the operator set rssAllowPrivateHosts.
 */
async function fetchFeed(url: string, input: HandlerInput, allowPrivate: boolean): Promise<ParsedFeed> {
  const outcome = await guardedFetch(
    url,
    { headers: FEED_HEADERS, signal: input.signal },
    { rules: { allowPrivate, privateSetting: 'rssAllowPrivateHosts' }, limits: outboundLimits(MAX_FEED_BYTES) },
  );
  const response = responseOf(outcome, displayUrl);
  if (!response.ok) {
    await response.body?.cancel();
    throw new DomainError('upstream_error', `HTTP ${response.status}`);
  }
  const text = await response.text();
  // The XML parser is loaded by the first sweep, not by every start of the service.
  const { parseFeed } = await import('./feed-parser.js');
  return parseFeed(text);
}

function keywordsFor(config: RssConfig, feed: RssConfig['feeds'][number]): string[] {
  const all = [...(config.keywords ?? []), ...(feed.keywords ?? [])].map((k) => k.trim()).filter((k) => k !== '');
  return [...new Map(all.map((k) => [k.toLowerCase(), k])).values()];
}

function absoluteLink(link: string | null, feedUrl: string): string | null {
  if (!link) return null;
  try {
    const url = new URL(link, feedUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * rss-sweep: fetches every feed of the rssConfigPath file (10 s timeout each), scores entries
 * for relevance and urgency, and records entries not seen before (by itemUrl) as RSS drafts in
 * state and in logsDir/rss-drafts.jsonl. Feeds that fail are listed in feedErrors; when every
 * feed fails the run fails with their causes: an unreachable network is never a green sweep.
 */
export type RssSweepContext = Pick<AppConfig, 'rssConfigPath' | 'rssAllowPrivateHosts' | 'logsDir' | 'workspaceRoot'>;

/** rss-sweep's admission check (lane hook): the run is refused unless rssConfigPath names a usable feeds file. */
export const rssSweepAdmissionCheck = (config: RssSweepContext) => () => rssConfigProblems(config);

export const rssSweep: StateHandler<RssSweepContext> = async (state, config, input) => {
  // Admission refuses these already; a file changed or removed since fails the run at once.
  if (!config.rssConfigPath) throw configurationRefusal(RSS_CONFIG_MISSING);
  const loaded = await loadRssConfig(config.rssConfigPath, displayPath(config.rssConfigPath, config));
  if (!loaded.ok) throw configurationRefusal(unusableRssConfig(loaded.error));
  const rss = loaded.config;
  const maxItems = rss.maxItemsPerFeed ?? DEFAULT_MAX_ITEMS_PER_FEED;

  // Feeds are independent: fetch them together, then process in config order for a stable result.
  const fetched = await Promise.allSettled(rss.feeds.map((feed) => fetchFeed(feed.url, input, config.rssAllowPrivateHosts)));
  if (input.signal.aborted) return failure('rss-sweep was cancelled before it finished');

  const now = input.clock.now();
  const timestamp = now.toISOString();
  const known = new Set(state.rssDrafts.map((d) => d.itemUrl));
  const feedErrors: FeedError[] = [];
  const drafts: RSSRecord[] = [];
  let feedsParsed = 0;
  let entriesParsed = 0;
  let entriesScored = 0;
  let highPriorityItemsCount = 0;
  let duplicatesSkipped = 0;

  rss.feeds.forEach((feed, i) => {
    const outcome = fetched[i];
    if (!outcome || outcome.status === 'rejected') {
      feedErrors.push({ feedUrl: displayUrl(feed.url), error: describeFetchError(outcome?.reason) });
      return;
    }
    feedsParsed += 1;
    entriesParsed += outcome.value.entries.length;
    const keywords = keywordsFor(rss, feed);
    const feedName = feed.name ?? outcome.value.title;
    for (const entry of outcome.value.entries.slice(0, maxItems)) {
      const itemUrl = absoluteLink(entry.link, feed.url);
      if (!itemUrl) continue;
      const score = scoreEntry(entry, keywords, now);
      entriesScored += 1;
      if (score.urgency === 'high') highPriorityItemsCount += 1;
      if (known.has(itemUrl)) {
        duplicatesSkipped += 1;
        continue;
      }
      known.add(itemUrl);
      const notes = [
        feedName ? `feed: ${feedName}` : null,
        score.matchedKeywords.length > 0 ? `keywords: ${score.matchedKeywords.join(', ')}` : null,
        entry.publishedAt ? null : 'publishedAt unknown (sweep time used)',
      ].filter((n): n is string => n !== null);
      drafts.push({
        timestamp,
        feedUrl: displayUrl(feed.url),
        itemTitle: entry.title || itemUrl,
        itemUrl,
        publishedAt: (entry.publishedAt ?? now).toISOString(),
        relevanceScore: score.relevanceScore,
        urgency: score.urgency,
        ...(notes.length > 0 ? { notes: notes.join('; ') } : {}),
      });
    }
  });

  if (feedsParsed === 0) {
    return failure(
      `all ${rss.feeds.length} feeds failed: ${feedErrors.map((e) => `${e.feedUrl}: ${e.error}`).join('; ')}`,
    );
  }

  const draftsLogPath = join(config.logsDir, 'rss-drafts.jsonl');
  if (drafts.length > 0) {
    // Checked when used: a logs folder swapped for a link would carry the drafts outside.
    const refused = configuredPathProblem(config.logsDir, 'logs folder', config);
    if (refused) return failure(`refused: ${refused}`);
    await appendFileNoFollow(draftsLogPath, drafts.map((d) => `${JSON.stringify(d)}\n`).join(''));
  }

  return {
    status: 'completed',
    result: {
      feedsParsed,
      entriesParsed,
      entriesScored,
      highPriorityItemsCount,
      newDrafts: drafts.length,
      duplicatesSkipped,
      draftsLogPath: displayPath(draftsLogPath, config),
      feedErrors,
    },
    // Another sweep may have landed in between: dedupe again against the state being updated.
    stateUpdate: (s) => {
      const present = new Set(s.rssDrafts.map((d) => d.itemUrl));
      return { ...s, rssDrafts: [...s.rssDrafts, ...drafts.filter((d) => !present.has(d.itemUrl))] };
    },
  };
};
