import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';

/** The kinds of text the lane writes, the voices it writes them in and how long they run. */
export const CONTENT_TYPES = ['operator-notice', 'readme', 'release-note', 'status-update', 'faq'] as const;
export const STYLES = ['client-facing', 'technical', 'internal'] as const;
export const LENGTHS = ['short', 'medium', 'long'] as const;

export type ContentType = (typeof CONTENT_TYPES)[number];
export type Style = (typeof STYLES)[number];
export type Length = (typeof LENGTHS)[number];

export interface ContentInput {
  type: ContentType;
  style: Style;
  length: Length;
  name: string;
  description: string;
}

/** Other spellings callers use for the same thing. */
const TYPE_ALIASES: Readonly<Record<string, ContentType>> = {
  notice: 'operator-notice', 'ops-notice': 'operator-notice', 'release-notes': 'release-note', changelog: 'release-note',
  status: 'status-update', update: 'status-update', faqs: 'faq', 'readme-md': 'readme',
};
const STYLE_ALIASES: Readonly<Record<string, Style>> = {
  client: 'client-facing', customer: 'client-facing', 'customer-facing': 'client-facing', 'user-facing': 'client-facing',
  external: 'client-facing', public: 'client-facing', engineering: 'technical', developer: 'technical', operator: 'internal',
  ops: 'internal', team: 'internal',
};
const LENGTH_ALIASES: Readonly<Record<string, Length>> = { brief: 'short', standard: 'medium', detailed: 'long', full: 'long' };

/** A type with no style of its own is written for the audience it usually has. */
const DEFAULT_STYLE: Readonly<Record<ContentType, Style>> = {
  'operator-notice': 'internal',
  readme: 'technical',
  'release-note': 'client-facing',
  'status-update': 'internal',
  faq: 'client-facing',
};

/** Below this a description is a label, not material to write from. */
export const MIN_DESCRIPTION_WORDS = 3;

function slug(value: string): string {
  return value.trim().toLowerCase().replace(/[\s_]+/g, '-');
}

/** A free-text choice read as one of the known values or an alias of one; null when absent or blank. */
function pick<T extends string>(
  value: string | undefined,
  field: string,
  known: readonly T[],
  aliases: Readonly<Record<string, T>>,
): T | null | { problem: string } {
  if (value === undefined || value.trim() === '') return null;
  const key = slug(value);
  const found = known.includes(key as T) ? (key as T) : aliases[key];
  return found ?? { problem: `unknown ${field} ${JSON.stringify(value)}: use one of ${known.join(', ')}` };
}

function isProblem(value: unknown): value is { problem: string } {
  return typeof value === 'object' && value !== null && 'problem' in value;
}

/**
 * Reads the content-generate payload, which the worker SDK has checked against its schema (source
 * {name, description} present, every field a string). What is left to refuse is what the schema
 * cannot say: an unknown type, style or length, and a subject too thin to write from. Every
 * refusal names the field and what it needs.
 */
export function readContentInput(payload: LanePayload<'content-generate'>): ContentInput | { problem: string } {
  const type = pick(payload.type, 'type', CONTENT_TYPES, TYPE_ALIASES);
  if (isProblem(type)) return type;
  const style = pick(payload.style, 'style', STYLES, STYLE_ALIASES);
  if (isProblem(style)) return style;
  const length = pick(payload.length, 'length', LENGTHS, LENGTH_ALIASES);
  if (isProblem(length)) return length;

  const { name, description } = payload.source;
  if (name.trim() === '') return { problem: 'payload.source.name is blank: the text must name its subject' };
  if (description.trim() === '') {
    return { problem: 'payload.source.description is blank: the text is written from it, and nothing is made up in its place' };
  }
  const words = description.trim().split(/\s+/).length;
  if (words < MIN_DESCRIPTION_WORDS) {
    return { problem: `payload.source.description is too short to write from (${words} word${words === 1 ? '' : 's'}; at least ${MIN_DESCRIPTION_WORDS})` };
  }
  const resolvedType = type ?? 'operator-notice';
  return {
    type: resolvedType,
    style: style ?? DEFAULT_STYLE[resolvedType],
    length: length ?? 'medium',
    name: name.trim().replace(/\s+/g, ' '),
    description: description.trim(),
  };
}
