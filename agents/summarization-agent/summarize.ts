import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { rankKeywords, termWeights, topicOf } from './keywords.js';
import {
  defaultSentenceCount,
  MIN_WORDS_PER_SENTENCE,
  scoreCandidates,
  selectSentences,
  type Candidate,
} from './select-sentences.js';
import { splitSentences, type SourceSentence } from './sentences.js';
import { tokenize, type Token } from './terms.js';

export type SummaryFormat = NonNullable<LanePayload<'summarize-content'>['format']>;

/**
 * The summarize-content payload: content, with optional sourceType (what the content is, e.g.
 * "incident notes"; it names the text in the executive summary), format and maxSentences.
 */
export type SummarizePayload = LanePayload<'summarize-content'>;

export type SummarizeSuccess = LaneResult<{
  success: true;
  format: SummaryFormat;
  sourceType: string | null;
  topic: string;
  keywords: string[];
  summary: string;
  bullets?: string[];
  sentenceCount: number;
  selectedSentenceCount: number;
  wordCount: number;
  compressionRatio: number;
  /** Present when the summary is the content itself; says why. */
  note?: string;
}>;

export type SummarizeOutcome = SummarizeSuccess | LaneRefusal;

/**
 * Below this there is nothing to condense: the text is its own summary, returned as written
 * with a note saying so.
 */
export const MIN_SENTENCES = 3;
export const MIN_WORDS = 30;
export const SHORT_CONTENT_NOTE = 'content is shorter than a summary; returned as written';

const IDENTITY = { role: 'summarization-agent', workflowStage: 'summarize', deliverable: 'extractive summary' };

interface SummarizeInput {
  content: string;
  format: SummaryFormat;
  sourceType: string | null;
  maxSentences: number | null;
}

/**
 * The payload in working form. The schema has checked the types, the format and the bounds of
 * maxSentences (1–50); the one thing left to refuse is content that holds only whitespace, which
 * passes its minimum length.
 */
function readInput(payload: SummarizePayload): SummarizeInput | { problem: string } {
  const { content, format, sourceType, maxSentences } = payload;
  if (content.trim() === '') return { problem: 'payload.content holds only whitespace: there is no text to summarize' };
  return {
    content,
    format: format ?? 'executive_summary',
    sourceType: sourceType !== undefined && sourceType.trim() !== '' ? sourceType.trim() : null,
    maxSentences: maxSentences ?? null,
  };
}

/** "incident_notes" → "incident notes"; anything that does not read as a short noun becomes "text". */
export function sourceLabel(sourceType: string | null): string {
  const label = (sourceType ?? '').toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return /^[\p{L}][\p{L}\p{N} ]{0,39}$/u.test(label) ? label : 'text';
}

function asSentence(text: string): string {
  return /[.!?…]["'”’)\]]*$/.test(text) ? text : `${text}.`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function nextActions(input: SummarizeInput, selected: number, sentenceCount: number): string[] {
  const actions = [
    'Check the summary against the source before quoting it: each sentence is the source’s own, but its surrounding context is gone.',
  ];
  if (input.maxSentences === null && sentenceCount >= selected * 3) {
    actions.push(`Set maxSentences above ${selected} for more detail; the source has ${sentenceCount} sentences.`);
  }
  actions.push(
    input.format === 'executive_summary'
      ? 'Ask for format "bullets" for a scannable list of the same points.'
      : 'Ask for format "executive_summary" for a paragraph that names the topic first.',
  );
  return actions;
}

/**
 * The summary of a text shorter than a summary would be: the text itself. Bullets are its
 * sentences, one each; the executive summary is the trimmed text, with no topic sentence
 * prepended, because a lead-in longer than the text helps nobody. maxSentences does not apply:
 * dropping sentences from a text this short would leave out what it says rather than condense it.
 */
function asWritten(input: SummarizeInput, units: Array<SourceSentence & { tokens: Token[] }>, wordCount: number): SummarizeSuccess {
  const sentences = units.filter((unit) => !unit.heading);
  // A text of headings only still gets its lines as bullets; one with no words at all, itself.
  const lines = (sentences.length > 0 ? sentences : units).map((unit) => unit.text);
  const bullets = lines.length > 0 ? lines : [input.content.trim()];
  const keywords = rankKeywords(units);
  const label = sourceLabel(input.sourceType);
  return {
    success: true,
    format: input.format,
    sourceType: input.sourceType,
    topic: topicOf(keywords),
    keywords: keywords.map((k) => k.phrase),
    summary: input.format === 'bullets' ? bullets.map((b) => `- ${b}`).join('\n') : input.content.trim(),
    ...(input.format === 'bullets' ? { bullets } : {}),
    sentenceCount: sentences.length,
    selectedSentenceCount: sentences.length,
    wordCount,
    compressionRatio: 1,
    note: SHORT_CONTENT_NOTE,
    operatorSummary: `Returned the ${wordCount}-word ${label} (${plural(sentences.length, 'sentence')}) as written: it is shorter than a summary.`,
    recommendedNextActions: [
      `Send at least ${MIN_WORDS} words in ${MIN_SENTENCES} or more sentences of ${MIN_WORDS_PER_SENTENCE}+ words for a condensed summary.`,
    ],
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}

/**
 * The summarize-content lane: an extractive summary of `payload.content`. Sentences are scored
 * by how much of the text's vocabulary they carry, the best ones are kept in source order,
 * and the summary says what the text is about. A text shorter than a summary is returned as
 * written; only empty content is refused. Pure and deterministic: no clock, no
 * randomness, no I/O, so the same payload always gives the same result.
 */
export function summarizeContent(payload: SummarizePayload): SummarizeOutcome {
  const input = readInput(payload);
  if ('problem' in input) {
    return refuseLane(IDENTITY, input.problem, [
      'Resend the task with payload.content as the text to summarize, an optional format ("executive_summary" or "bullets") and an optional maxSentences.',
    ]);
  }

  const units = splitSentences(input.content).map((unit) => ({ ...unit, tokens: tokenize(unit.text) }));
  const sentences = units.filter((unit) => !unit.heading);
  const wordCount = sentences.reduce((sum, unit) => sum + unit.tokens.length, 0);
  const candidates: Candidate[] = sentences
    .filter((unit) => unit.tokens.length >= MIN_WORDS_PER_SENTENCE)
    .map((unit) => ({
      index: unit.index,
      text: unit.text,
      wordCount: unit.tokens.length,
      stems: new Set(unit.tokens.flatMap((token) => (token.stem === null ? [] : [token.stem]))),
    }));
  if (candidates.length < MIN_SENTENCES || wordCount < MIN_WORDS) {
    return asWritten(input, units, wordCount);
  }
  const keywords = rankKeywords(units);
  if (keywords.length === 0) {
    return refuseLane(IDENTITY, 'content has no distinctive terms to summarize (only common words or numbers)', [
      'Check that payload.content holds the intended text.',
    ]);
  }

  const topic = topicOf(keywords);
  const count = Math.min(input.maxSentences ?? defaultSentenceCount(candidates.length), candidates.length);
  const selected = selectSentences(scoreCandidates(candidates, termWeights(units)), count);
  const selectedWords = selected.reduce((sum, s) => sum + s.wordCount, 0);
  const compressionRatio = Math.round((selectedWords / wordCount) * 1000) / 1000;
  const label = sourceLabel(input.sourceType);

  const bullets = selected.map((s) => s.text);
  const summary =
    input.format === 'bullets'
      ? bullets.map((b) => `- ${b}`).join('\n')
      : `This ${label} concerns ${topic}: ${selected.map((s) => asSentence(s.text)).join(' ')}`;

  return {
    success: true,
    format: input.format,
    sourceType: input.sourceType,
    topic,
    keywords: keywords.map((k) => k.phrase),
    summary,
    ...(input.format === 'bullets' ? { bullets } : {}),
    sentenceCount: sentences.length,
    selectedSentenceCount: selected.length,
    wordCount,
    compressionRatio,
    operatorSummary: `Summarized a ${wordCount}-word ${label} (${plural(sentences.length, 'sentence')}) into ${plural(selected.length, 'sentence')} about ${topic}, keeping ${Math.round(compressionRatio * 100)}% of the words.`,
    recommendedNextActions: nextActions(input, selected.length, sentences.length),
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
