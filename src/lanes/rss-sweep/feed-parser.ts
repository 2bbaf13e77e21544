import { DomainError } from '../../domain/errors.js';
import { XMLValidator } from 'fast-xml-parser';
import { stringValuedXmlParser } from '../../common/xml-parser.js';

export interface FeedEntry {
  title: string;
  /** As written in the feed; may be relative to the feed URL. */
  link: string | null;
  /** Plain text (markup stripped). */
  summary: string;
  publishedAt: Date | null;
}

export interface ParsedFeed {
  format: 'rss2' | 'rss1' | 'atom';
  title: string;
  entries: FeedEntry[];
}

// Every value stays a string (a numeric title must not turn into a number); HTML entities decoded.
const parser = stringValuedXmlParser({ htmlEntities: true });

type Node = Record<string, unknown>;

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Text of an element whether the parser gave a string, a number or an object with attributes. */
function text(value: unknown): string {
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value && typeof value === 'object') return text((value as Node)['#text']);
  return '';
}

/** Markup removed and whitespace collapsed: summaries are scored as plain words. */
export function stripMarkup(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function date(value: unknown): Date | null {
  const raw = text(value).trim();
  if (raw === '') return null;
  const parsed = new Date(raw);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

function atomLink(value: unknown): string | null {
  const links = asArray(value).filter((l): l is Node => typeof l === 'object' && l !== null);
  const preferred = links.find((l) => l['@_rel'] === undefined || l['@_rel'] === 'alternate') ?? links[0];
  const href = preferred?.['@_href'];
  if (typeof href === 'string' && href !== '') return href;
  const plain = asArray(value).find((l): l is string => typeof l === 'string');
  return plain ?? null;
}

function rssEntry(item: Node): FeedEntry {
  const guid = item.guid;
  const guidIsLink =
    typeof guid === 'object' && guid !== null ? (guid as Node)['@_isPermaLink'] !== 'false' : typeof guid === 'string';
  const link = text(item.link) || (guidIsLink && /^https?:\/\//.test(text(guid)) ? text(guid) : '');
  return {
    title: stripMarkup(text(item.title)),
    link: link || null,
    summary: stripMarkup(text(item.description) || text(item['content:encoded'])),
    publishedAt: date(item.pubDate) ?? date(item['dc:date']),
  };
}

function atomEntry(entry: Node): FeedEntry {
  return {
    title: stripMarkup(text(entry.title)),
    link: atomLink(entry.link),
    summary: stripMarkup(text(entry.summary) || text(entry.content)),
    publishedAt: date(entry.published) ?? date(entry.updated),
  };
}

/** A feed of any format: the title of its channel (or of the Atom feed itself) and its entries, read by the format's reader. */
function feedOf(format: ParsedFeed['format'], head: Node, items: unknown, entryOf: (node: Node) => FeedEntry): ParsedFeed {
  return { format, title: text(head.title), entries: asArray(items).filter((i): i is Node => typeof i === 'object' && i !== null).map(entryOf) };
}

const channelOf = (root: Node): Node => (asArray(root.channel)[0] ?? {}) as Node;

/** Parses RSS 2.0, RSS 1.0 (RDF) or Atom; throws with a reason for anything else. */
export function parseFeed(xml: string): ParsedFeed {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new DomainError('upstream_error', `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as Node;

  const rss = doc.rss as Node | undefined;
  if (rss && typeof rss === 'object') {
    const channel = channelOf(rss);
    return feedOf('rss2', channel, channel.item, rssEntry);
  }
  const feed = doc.feed as Node | undefined;
  if (feed && typeof feed === 'object') return feedOf('atom', feed, feed.entry, atomEntry);
  const rdf = doc['rdf:RDF'] as Node | undefined;
  // RSS 1.0 keeps its items beside the channel, not inside it.
  if (rdf && typeof rdf === 'object') return feedOf('rss1', channelOf(rdf), rdf.item, rssEntry);
  throw new DomainError('upstream_error', 'not an RSS or Atom feed (no <rss>, <feed> or <rdf:RDF> root)');
}
