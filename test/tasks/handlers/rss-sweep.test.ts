import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../../src/config/types.js';
import { parseFeed } from '../../../src/lanes/rss-sweep/feed-parser.js';
import { scoreEntry } from '../../../src/lanes/rss-sweep/relevance.js';
import { rssSweep } from '../../../src/lanes/rss-sweep/handler.js';
import type { RSSRecord } from '../../../src/domain/orchestrator-state.js';
import { applyOutcome, freshState, handlerInput } from '../../support/handlers.js';
import { handlerConfig } from '../../support/config.js';
import { closedPortUrl, startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';

// The handler clock of fixtures.ts reads 2024-05-01T12:00:00Z.
const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>Platform news</title>
    <item>
      <title>Orchestrator release for TypeScript teams</title>
      <link>https://news.example.test/posts/1</link>
      <description>Release notes.</description>
      <pubDate>Wed, 01 May 2024 08:00:00 GMT</pubDate>
    </item>
    <item>
      <title>Weekly news</title>
      <link>https://news.example.test/posts/2</link>
      <description><![CDATA[<p>Our <b>TypeScript</b> guide, now with more <i>orchestrator</i> detail</p>]]></description>
      <pubDate>Mon, 29 Apr 2024 12:00:00 GMT</pubDate>
    </item>
    <item>
      <title>Unrelated gardening tips</title>
      <link>https://news.example.test/posts/3</link>
      <pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate>
    </item>
    <item>
      <title>Orchestrator tips</title>
      <link>/posts/4</link>
    </item>
  </channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Community board</title>
  <entry>
    <title type="html">Self-hosted &lt;b&gt;Orchestrator&lt;/b&gt; questions</title>
    <link rel="self" href="https://board.example.test/api/7"/>
    <link rel="alternate" href="https://board.example.test/t/7"/>
    <updated>2024-05-01T10:30:00Z</updated>
    <summary>How do TypeScript users size their queues?</summary>
  </entry>
  <entry>
    <title>Off topic</title>
    <link href="https://board.example.test/t/8"/>
    <published>2024-04-20T10:00:00Z</published>
    <content type="html">&lt;p&gt;Nothing relevant&lt;/p&gt;</content>
  </entry>
</feed>`;

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer({
    '/rss.xml': { body: RSS, contentType: 'application/rss+xml' },
    '/atom.xml': { body: ATOM, contentType: 'application/atom+xml' },
    '/broken.xml': { status: 500, body: 'oops' },
    '/html': { body: '<html><body>not a feed</body></html>', contentType: 'text/html' },
  });
});

afterAll(async () => {
  await server.close();
});

/** The feeds file; the test server is on loopback, which the operator allows on purpose unless `allowPrivate` says no. */
function configWithFeeds(rssFile: Record<string, unknown>, allowPrivate = true): AppConfig {
  const config = handlerConfig({ rssConfigPath: './rss.json', rssAllowPrivateHosts: allowPrivate });
  writeFileSync(join(config.baseDir, 'rss.json'), JSON.stringify(rssFile));
  return config;
}

interface SweepResult {
  feedsParsed: number;
  entriesParsed: number;
  entriesScored: number;
  highPriorityItemsCount: number;
  newDrafts: number;
  duplicatesSkipped: number;
  draftsLogPath: string;
  feedErrors: Array<{ feedUrl: string; error: string }>;
}

describe('rss-sweep handler', () => {
  it('parses RSS 2.0 and Atom feeds from a loopback server, scores them and records drafts', async () => {
    const config = configWithFeeds({
      keywords: ['orchestrator', 'typescript'],
      feeds: [
        { url: `${server.url}/rss.xml`, name: 'news' },
        { url: `${server.url}/atom.xml`, keywords: ['queues'] },
      ],
    });
    const outcome = await rssSweep(freshState(), config, handlerInput('rss-sweep'));
    expect(outcome.status).toBe('completed');
    const result = outcome.result as SweepResult;
    expect(result).toMatchObject({
      feedsParsed: 2,
      entriesParsed: 6,
      entriesScored: 6,
      highPriorityItemsCount: 2,
      newDrafts: 6,
      duplicatesSkipped: 0,
      feedErrors: [],
      draftsLogPath: 'logs/rss-drafts.jsonl',
    });

    const state = applyOutcome(freshState(), outcome);
    const byUrl = new Map(state.rssDrafts.map((d) => [d.itemUrl, d]));
    // two title keywords (40) + under a day old (30)
    expect(byUrl.get('https://news.example.test/posts/1')).toMatchObject({ relevanceScore: 70, urgency: 'high', notes: expect.stringContaining('feed: news') });
    // two summary keywords (20) + two days old (20)
    expect(byUrl.get('https://news.example.test/posts/2')).toMatchObject({ relevanceScore: 40, urgency: 'medium' });
    expect(byUrl.get('https://news.example.test/posts/3')).toMatchObject({ relevanceScore: 0, urgency: 'low' });
    // a relative link resolves against the feed URL; a missing date is noted, not invented silently
    const relative = byUrl.get(`${server.url}/posts/4`);
    expect(relative).toMatchObject({ relevanceScore: 20, urgency: 'low', publishedAt: '2024-05-01T12:00:00.000Z' });
    expect(relative!.notes).toContain('publishedAt unknown');
    // Atom: the alternate link is the item, markup is stripped; title 20 + summary 10 + 10 (feed keyword) + 30
    expect(byUrl.get('https://board.example.test/t/7')).toMatchObject({
      itemTitle: 'Self-hosted Orchestrator questions',
      relevanceScore: 70,
      urgency: 'high',
      feedUrl: `${server.url}/atom.xml`,
    });

    const lines = readFileSync(join(config.logsDir, 'rss-drafts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RSSRecord);
    expect(lines).toHaveLength(6);
    expect(lines.map((l) => l.itemUrl)).toContain('https://board.example.test/t/7');
  });

  it('does not record an item twice across sweeps (dedupe by itemUrl)', async () => {
    const config = configWithFeeds({ keywords: ['orchestrator'], feeds: [{ url: `${server.url}/rss.xml` }] });
    const first = await rssSweep(freshState(), config, handlerInput('rss-sweep'));
    const state = applyOutcome(freshState(), first);
    expect(state.rssDrafts).toHaveLength(4);

    const second = await rssSweep(state, config, handlerInput('rss-sweep'));
    expect(second.result).toMatchObject({ newDrafts: 0, duplicatesSkipped: 4 });
    expect(applyOutcome(state, second).rssDrafts).toHaveLength(4);
    expect(readFileSync(join(config.logsDir, 'rss-drafts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(4);

    // a concurrent sweep that already stored the drafts: applying a stale outcome adds nothing twice
    expect(applyOutcome(state, first).rssDrafts).toHaveLength(4);
  });

  it('completes with the failing feeds listed when some feeds fail', async () => {
    const config = configWithFeeds({
      feeds: [{ url: `${server.url}/broken.xml` }, { url: `${server.url}/html` }, { url: `${server.url}/atom.xml` }],
    });
    const outcome = await rssSweep(freshState(), config, handlerInput('rss-sweep'));
    expect(outcome.status).toBe('completed');
    expect((outcome.result as SweepResult).feedErrors).toEqual([
      { feedUrl: `${server.url}/broken.xml`, error: 'HTTP 500' },
      { feedUrl: `${server.url}/html`, error: expect.stringContaining('not an RSS or Atom feed') },
    ]);
  });

  it('fails with the causes when no feed can be reached', async () => {
    const closed = await closedPortUrl();
    const config = configWithFeeds({ feeds: [{ url: `${closed}/rss.xml` }] });
    const outcome = await rssSweep(freshState(), config, handlerInput('rss-sweep'));
    expect(outcome.status).toBe('error');
    expect(outcome.error).toContain('all 1 feeds failed');
    expect(outcome.error).toContain('ECONNREFUSED');
    expect(outcome.stateUpdate).toBeUndefined();
  });

  it('refuses as a configuration problem naming rssConfigPath when it is not configured or the file is unusable', async () => {
    // invalid_config is a refusal: the executor fails the run at once instead of retrying it.
    const refusal = (config: Parameters<typeof rssSweep>[1]) => rssSweep(freshState(), config, handlerInput('rss-sweep'));
    await expect(refusal(handlerConfig())).rejects.toMatchObject({
      code: 'invalid_config',
      message: 'rssConfigPath is not configured: rss-sweep reads its feeds from that file',
      details: [{ path: '/config/rssConfigPath' }],
    });
    await expect(refusal(handlerConfig({ rssConfigPath: './nope.json' }))).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(/^rssConfigPath is not usable: rss config \S*nope\.json cannot be read \(ENOENT\)$/),
    });
    await expect(refusal(configWithFeeds({ feeds: [] }))).rejects.toMatchObject({ code: 'invalid_config', message: expect.stringMatching(/^rssConfigPath is not usable: rss config \S*rss\.json is invalid/) });
    await expect(refusal(configWithFeeds({ feeds: [{ url: 'ftp://x/y' }] }))).rejects.toMatchObject({ code: 'invalid_config', message: expect.stringContaining('http or https') });
  });

  it('refuses a feed on loopback without rssAllowPrivateHosts, sending it nothing, and fetches it with the setting', async () => {
    const feedUrl = `${server.url}/rss.xml`;
    const before = server.received.length;
    const refused = await rssSweep(freshState(), configWithFeeds({ feeds: [{ url: feedUrl }] }, false), handlerInput('rss-sweep'));
    expect(refused).toEqual({
      status: 'error',
      error: `all 1 feeds failed: ${feedUrl}: refused: 127.0.0.1 is a loopback address; private hosts are not allowed (rssAllowPrivateHosts is false)`,
    });
    const localhost = await rssSweep(freshState(), configWithFeeds({ feeds: [{ url: feedUrl.replace('127.0.0.1', 'localhost') }] }, false), handlerInput('rss-sweep'));
    expect(localhost.error).toContain('localhost is a loopback host name; private hosts are not allowed (rssAllowPrivateHosts is false)');
    expect(server.received.length).toBe(before);

    const allowed = await rssSweep(freshState(), configWithFeeds({ feeds: [{ url: feedUrl }] }, true), handlerInput('rss-sweep'));
    expect(allowed).toMatchObject({ status: 'completed', result: { feedsParsed: 1, feedErrors: [] } });
    expect(server.received.slice(before).map((r) => r.url)).toEqual(['/rss.xml']);
  });

  it('stops with an error when the run is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const config = configWithFeeds({ feeds: [{ url: `${server.url}/rss.xml` }] });
    const outcome = await rssSweep(freshState(), config, handlerInput('rss-sweep', {}, { signal: controller.signal }));
    expect(outcome).toEqual({ status: 'error', error: 'rss-sweep was cancelled before it finished' });
  });
});

describe('feed parsing and scoring', () => {
  it('parses RSS 1.0 (RDF) feeds', () => {
    const feed = parseFeed(`<?xml version="1.0"?>
      <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel><title>Old school</title></channel>
        <item><title>One</title><link>https://x.test/1</link><dc:date>2024-04-30T00:00:00Z</dc:date></item>
      </rdf:RDF>`);
    expect(feed).toMatchObject({ format: 'rss1', title: 'Old school', entries: [{ title: 'One', link: 'https://x.test/1' }] });
  });

  it('refuses XML that is not well-formed', () => {
    expect(() => parseFeed('<rss><channel>')).toThrow(/well-formed/);
  });

  it('matches keywords as whole words only', () => {
    const now = new Date('2024-05-01T00:00:00Z');
    expect(scoreEntry({ title: 'He said so', summary: '', publishedAt: null }, ['ai'], now).relevanceScore).toBe(0);
    expect(scoreEntry({ title: 'AI tooling', summary: '', publishedAt: null }, ['ai'], now)).toMatchObject({
      relevanceScore: 20,
      matchedKeywords: ['ai'],
    });
  });
});
