import { readFile } from 'node:fs/promises';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';

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

/** Reads and checks the feeds file; every problem becomes one readable reason for the run. */
/** `shownAs` names the file in messages (never the server's absolute path). */
export async function loadRssConfig(path: string, shownAs: string): Promise<RssConfigLoad> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, error: `rss config ${shownAs} cannot be read (${code ?? (err as Error).message})` };
  }
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
