import MiniSearch from 'minisearch';
import type { IndexedDoc } from './index-model.js';

interface ChunkEntry {
  id: string;
  path: string;
  title: string;
  heading: string;
  text: string;
  concepts: string;
}

export interface SearchHit {
  path: string;
  title: string;
  score: number;
  heading: string;
  snippet: string;
  concepts: string[];
  matchedTerms: string[];
}

const SNIPPET_CHARS = 240;

/**
 * Ranked full-text search over doc chunks (MiniSearch: BM25 with prefix and light fuzzy
 * matching). Titles, headings and concepts weigh more than body text. A doc's score is its best
 * chunk's; each doc appears once, with a snippet from that chunk around the first matched term.
 */
export class DocSearch {
  private readonly engine: MiniSearch<ChunkEntry>;
  private readonly docs: Map<string, IndexedDoc>;

  constructor(docs: IndexedDoc[]) {
    this.docs = new Map(docs.map((d) => [d.path, d]));
    this.engine = new MiniSearch<ChunkEntry>({
      fields: ['title', 'heading', 'text', 'concepts'],
      storeFields: ['path', 'heading', 'text'],
      searchOptions: {
        boost: { title: 3, heading: 2, concepts: 2 },
        prefix: (term) => term.length >= 3,
        fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
        combineWith: 'OR',
      },
    });
    this.engine.addAll(
      docs.flatMap((doc) =>
        doc.chunks.map((chunk) => ({
          id: chunk.id,
          path: doc.path,
          title: doc.title,
          heading: chunk.heading,
          text: chunk.text,
          concepts: doc.concepts.join(' '),
        })),
      ),
    );
  }

  search(query: string, options: { limit: number; paths?: string[] }): { hits: SearchHit[]; total: number } {
    const inScope = (path: string) =>
      !options.paths || options.paths.length === 0 || options.paths.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));
    const best = new Map<string, { score: number; heading: string; text: string; terms: string[] }>();
    for (const result of this.engine.search(query)) {
      const path = result.path as string;
      if (!inScope(path)) continue;
      const current = best.get(path);
      if (!current || result.score > current.score) {
        best.set(path, { score: result.score, heading: result.heading as string, text: result.text as string, terms: result.terms });
      }
    }
    const ranked = [...best.entries()].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1));
    const hits = ranked.slice(0, options.limit).map(([path, hit]) => {
      const doc = this.docs.get(path)!;
      return {
        path,
        title: doc.title,
        score: Math.round(hit.score * 1000) / 1000,
        heading: hit.heading,
        snippet: snippetOf(hit.text, hit.terms),
        concepts: doc.concepts.slice(0, 10),
        matchedTerms: hit.terms,
      };
    });
    return { hits, total: ranked.length };
  }
}

function snippetOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 60);
  const piece = flat.slice(start, start + SNIPPET_CHARS);
  return `${start > 0 ? '...' : ''}${piece}${start + SNIPPET_CHARS < flat.length ? '...' : ''}`;
}
