import type { QueueItem } from '../../src/worker-sdk/community-response.js';
import type { DocMatch } from './match-docs.js';

const MAX_SUMMARY_CHARS = 420;

/** The first sentences of a summary, whole, within `max` characters. */
export function leadSentences(summary: string, max: number = MAX_SUMMARY_CHARS): string {
  const sentences = summary.replace(/\s+/g, ' ').trim().match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [];
  let out = '';
  for (const sentence of sentences) {
    const next = `${out}${out ? ' ' : ''}${sentence.trim()}`;
    if (next.length > max) break;
    out = next;
  }
  return out || summary.slice(0, max).trim();
}

/**
 * A reply grounded in the pack: what the best doc says, what a second doc adds, and where to
 * read more. Deterministic, and it states only what the pack's summaries state.
 */
export function composeDraft(item: QueueItem, matches: DocMatch[]): string {
  const [best, second] = matches;
  if (!best) throw new Error('composeDraft needs at least one matching doc');
  const lines = [`Thanks for raising "${item.title}".`, ''];
  lines.push(best.doc.summary ? leadSentences(best.doc.summary) : `Our documentation covers this in "${best.doc.title}".`);
  if (second?.doc.summary) lines.push('', `Related: ${second.doc.title}: ${leadSentences(second.doc.summary, 200)}`);
  const refs = matches.map((m) => `"${m.doc.title}" (${m.doc.path})`).join(' and ');
  lines.push('', `More detail is in ${refs}.`);
  return lines.join('\n');
}
