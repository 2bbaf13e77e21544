import { posix } from 'node:path';
import { outlineDoc } from './doc-outline.js';
import { DOC_EXTENSIONS } from './docs-walk.js';
import { extractFacts, type DocFact } from './facts.js';

/** Bumped whenever what the indexer extracts changes: every doc is then re-analysed once. */
export const INDEXER_VERSION = 'knowledge-indexer/1';

export interface DocChunk {
  /** `<doc path>#<n>`, stable while the doc is unchanged. */
  id: string;
  heading: string;
  text: string;
  line: number;
}

export type DocLinkKind = 'doc' | 'workspace' | 'external' | 'anchor';

export interface DocLink {
  target: string;
  kind: DocLinkKind;
  /**
   * `doc`: the target doc path relative to docsPath. `workspace`: the target relative to
   * docsPath, `/`-separated, possibly climbing out of it (`../src/app.ts`). Null otherwise.
   */
  resolved: string | null;
  line: number;
}

export interface DocAnalysis {
  title: string;
  headings: string[];
  wordCount: number;
  summary: string;
  concepts: string[];
  links: DocLink[];
  /** Workspace files named in code spans (`src/app.ts`), relative to the docs folder's parent tree. */
  mentionedFiles: string[];
  facts: DocFact[];
  chunks: DocChunk[];
}

const STOPWORDS = new Set(
  `a about after again all also an and any are as at be because been before being between both but by can could did
  do does each few for from further had has have here how if in into is it its just more most must no nor not now of
  off on once only or other our out over own same should so some such than that the their them then there these they
  this those through to too under until up use used using very was we were what when where which while who why will
  with would you your yours see run runs set sets get gets one two may new`
    .split(/\s+/)
    .filter((w) => w !== ''),
);

const MAX_CHUNK_CHARS = 1200;
const MAX_CONCEPTS = 30;
const MAX_LINKS = 200;

/** A concept as the index names it: lower case, single spaces, no surrounding punctuation. */
export function normalizeConcept(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/^[\d.)\s-]+/, '')
    .replace(/[^\p{L}\p{N}\s./-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function termsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}][\p{L}\p{N}_-]{2,}/gu) ?? []).filter((t) => !STOPWORDS.has(t));
}

/** Lines of prose: code fences blanked so nothing inside a sample counts as a heading, link or concept. */
function proseLines(content: string): string[] {
  let inFence = false;
  return content.split(/\r?\n/).map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      return '';
    }
    return inFence ? '' : line;
  });
}

function summaryOf(lines: string[]): string {
  const paragraph: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    const structural = line === '' || /^(#|\||>|<|!\[|---|\*\*\*|===)/.test(line);
    if (structural) {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line.replace(/^[-*+]\s+|^\d+[.)]\s+/, ''));
  }
  const text = paragraph.join(' ').replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 297).trimEnd()}...` : text;
}

/**
 * Concepts of a doc: its headings, the terms it sets in code spans or bold, and the words it
 * repeats most. All deterministic, so the same doc always yields the same concepts.
 */
function conceptsOf(headings: string[], lines: string[]): string[] {
  const found: string[] = [];
  const add = (raw: string) => {
    const concept = normalizeConcept(raw);
    if (concept.length >= 2 && concept.length <= 60 && !STOPWORDS.has(concept) && !found.includes(concept)) found.push(concept);
  };
  headings.forEach(add);
  const text = lines.join('\n');
  for (const m of text.matchAll(/\*\*([^*\n]{2,60})\*\*/g)) add(m[1]!);
  for (const m of text.matchAll(/`([A-Za-z_][\w.-]{1,40})`/g)) add(m[1]!);
  const counts = new Map<string, number>();
  for (const term of termsOf(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  [...counts.entries()]
    .filter(([, n]) => n >= 3)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 10)
    .forEach(([term]) => add(term));
  return found.slice(0, MAX_CONCEPTS);
}

function safeDecode(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text; // a stray % is part of the name
  }
}

function linksOf(path: string, lines: string[]): DocLink[] {
  const links: DocLink[] = [];
  const dir = posix.dirname(path);
  lines.forEach((text, index) => {
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (links.length >= MAX_LINKS) return;
      const target = m[1]!;
      const line = index + 1;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, kind: 'external', resolved: null, line });
      else if (target.startsWith('#')) links.push({ target, kind: 'anchor', resolved: null, line });
      else {
        const bare = safeDecode(target.split('#')[0]!.split('?')[0]!);
        const resolved = posix.normalize(bare.startsWith('/') ? bare.slice(1) : posix.join(dir, bare));
        const isDoc = DOC_EXTENSIONS.has(posix.extname(resolved).toLowerCase()) && !resolved.startsWith('../');
        links.push({ target, kind: isDoc ? 'doc' : 'workspace', resolved, line });
      }
    }
  });
  return links;
}

/** File paths set in code spans (`src/app.ts`): candidates for files a doc describes. */
function mentionedFilesOf(lines: string[]): string[] {
  const files = new Set<string>();
  for (const line of lines) {
    for (const m of line.matchAll(/`((?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.-]+)+\.[A-Za-z0-9]{1,8})`/g)) {
      if (files.size >= MAX_LINKS) break;
      files.add(posix.normalize(m[1]!.replace(/^\.\//, '')));
    }
  }
  return [...files].sort();
}

/** Sections split at headings, long sections split again at paragraph breaks. */
function chunksOf(path: string, title: string, content: string): DocChunk[] {
  const chunks: DocChunk[] = [];
  let heading = title;
  let buffer: string[] = [];
  let startLine = 1;
  let inFence = false;
  const flush = (nextLine: number) => {
    const text = buffer.join('\n').trim();
    if (text !== '') chunks.push({ id: `${path}#${chunks.length}`, heading, text, line: startLine });
    buffer = [];
    startLine = nextLine;
  };
  content.split(/\r?\n/).forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const h = inFence ? null : /^(#{1,6})\s+(.+?)(?:\s+#+)?\s*$/.exec(line);
    if (h) {
      flush(index + 1);
      heading = h[2]!;
    } else if (!inFence && line.trim() === '' && buffer.join('\n').length >= MAX_CHUNK_CHARS) {
      flush(index + 2);
    }
    buffer.push(line);
  });
  flush(0);
  return chunks;
}

/** Everything the index keeps about one doc, from its path (relative to docsPath) and text. */
export function analyzeDoc(path: string, content: string): DocAnalysis {
  const outline = outlineDoc(path, content);
  const lines = proseLines(content);
  return {
    title: outline.title,
    headings: outline.headings,
    wordCount: outline.wordCount,
    summary: summaryOf(lines),
    concepts: conceptsOf(outline.headings, lines),
    links: linksOf(path, lines),
    mentionedFiles: mentionedFilesOf(lines),
    facts: extractFacts(content),
    chunks: chunksOf(path, outline.title, content),
  };
}
