import type { LoadSummary } from './load.js';
import type { RowSink } from './results.js';

/**
 * The read scenarios' self-check: every request of a load was answered 2xx. A 404, 429 or 500
 * is fast and cheap, so a load that got them measured something else; the row fails.
 */
export function checkAnswers(rows: RowSink, subject: string, what: string, summary: Pick<LoadSummary, 'non2xx' | 'errors' | 'statusCodes' | 'completed'>): boolean {
  const odd = Object.entries(summary.statusCodes).filter(([code]) => !code.startsWith('2'));
  const detail =
    `${summary.completed} answered, ${summary.non2xx} non-2xx` +
    (odd.length ? ` (${odd.map(([c, n]) => `${c}x${n}`).join(', ')})` : '') +
    `, ${summary.errors} socket errors`;
  return rows.check(subject, `${what}: every answer 2xx`, summary.non2xx === 0 && summary.errors === 0 && summary.completed > 0, detail);
}
