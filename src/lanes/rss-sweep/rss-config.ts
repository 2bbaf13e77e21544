import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { AppConfig } from '../../config/types.js';
import { displayPath } from '../../common/display-path.js';
import { pointer, type ErrorDetail } from '../../domain/errors.js';

export const DEFAULT_MAX_ITEMS_PER_FEED = 50;

/** The feeds file named by config rssConfigPath. */
export const RssConfigSchema = Type.Object(
  {
    feeds: Type.Array(
      Type.Object(
        {
          url: Type.String({ minLength: 1, description: 'http(s) URL of an RSS 2.0, RSS 1.0 or Atom feed.' }),
          name: Type.Optional(Type.String({ description: 'Display name of the feed.' })),
          keywords: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Keywords for this feed only.' })),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    keywords: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Keywords for every feed.' })),
    maxItemsPerFeed: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  },
  { additionalProperties: true },
);
export type RssConfig = Static<typeof RssConfigSchema>;

const validator = Compile(RssConfigSchema);

export type RssConfigLoad = { ok: true; config: RssConfig } | { ok: false; error: string };

/** Why the feeds file could not be read, naming it as shown. */
function unreadable(err: unknown, shownAs: string): RssConfigLoad {
  const code = (err as NodeJS.ErrnoException).code;
  return { ok: false, error: `rss config ${shownAs} cannot be read (${code ?? (err as Error).message})` };
}

/** Reads and checks the feeds file; every problem becomes one readable reason for the run. */
/** `shownAs` names the file in messages (never the server's absolute path). */
export async function loadRssConfig(path: string, shownAs: string): Promise<RssConfigLoad> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    return unreadable(err, shownAs);
  }
  return parseRssConfig(raw, shownAs);
}

/** loadRssConfig for the admission check, which answers before the request does (a small file). */
function loadRssConfigSync(path: string, shownAs: string): RssConfigLoad {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    return unreadable(err, shownAs);
  }
  return parseRssConfig(raw, shownAs);
}

/** Checks the text of a feeds file: JSON, the schema, and http(s) feed URLs. */
function parseRssConfig(raw: string, shownAs: string): RssConfigLoad {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `rss config ${shownAs} is not valid JSON: ${(err as Error).message}` };
  }
  if (!validator.Check(parsed)) {
    const problems = validator
      .Errors(parsed)
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    return { ok: false, error: `rss config ${shownAs} is invalid: ${problems}` };
  }
  for (const [i, feed] of parsed.feeds.entries()) {
    let url: URL;
    try {
      url = new URL(feed.url);
    } catch {
      return { ok: false, error: `rss config ${shownAs}: feeds[${i}].url is not a URL` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { ok: false, error: `rss config ${shownAs}: feeds[${i}].url must be http or https` };
    }
  }
  return { ok: true, config: parsed };
}

/** Where problems of the setting point: rss-sweep's feeds file is `rssConfigPath`. */
const RSS_CONFIG_SETTING = pointer('config', 'rssConfigPath');

/** The problem of a feeds file that did not load, naming the setting. */
export const unusableRssConfig = (error: string): ErrorDetail => ({ path: RSS_CONFIG_SETTING, message: `rssConfigPath is not usable: ${error}` });

export const RSS_CONFIG_MISSING: ErrorDetail = { path: RSS_CONFIG_SETTING, message: 'rssConfigPath is not configured: rss-sweep reads its feeds from that file' };

/** rss-sweep's admission check: the setting is there and names a feeds file that loads. */
export function rssConfigProblems(config: Pick<AppConfig, 'rssConfigPath' | 'workspaceRoot' | 'logsDir'>): ErrorDetail[] {
  if (!config.rssConfigPath) return [RSS_CONFIG_MISSING];
  const loaded = loadRssConfigSync(config.rssConfigPath, displayPath(config.rssConfigPath, config));
  return loaded.ok ? [] : [unusableRssConfig(loaded.error)];
}
