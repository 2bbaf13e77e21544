import { describe, expect, it } from 'vitest';
import { rankKeywords, topicOf } from '../../../agents/summarization-agent/keywords.js';
import { splitSentences } from '../../../agents/summarization-agent/sentences.js';
import { summarizeContent, type SummarizePayload, type SummarizeSuccess } from '../../../agents/summarization-agent/summarize.js';
import { tokenize } from '../../../agents/summarization-agent/terms.js';
import { defineLane } from '../../../src/worker-sdk/lane-definition.js';
import { MIGRATION_REPORT, OUTAGE_REVIEW } from '../../support/summarize-texts.js';

function succeed(payload: SummarizePayload): SummarizeSuccess {
  const result = summarizeContent(payload);
  if (!result.success) throw new Error(`expected a summary, got a refusal: ${result.error}`);
  return result;
}

const sentencesOf = (text: string) => splitSentences(text).filter((s) => !s.heading).map((s) => s.text);

describe('summarizeContent: what the text is about', () => {
  it('names the topic and opens the executive summary with it', () => {
    const result = succeed({ sourceType: 'report', content: MIGRATION_REPORT });
    expect(result.topic).toBe('database migration and rollback');
    expect(result.keywords.slice(0, 2)).toEqual(['database migration', 'rollback']);
    expect(result.summary.startsWith('This report concerns database migration and rollback: ')).toBe(true);
    expect(result.summary).not.toContain('cafeteria');
  });

  it('reads a source type like "incident_review" as words, and says "text" when there is none', () => {
    expect(succeed({ sourceType: 'incident_review', content: OUTAGE_REVIEW }).summary).toMatch(/^This incident review concerns payment gateway/);
    expect(succeed({ content: OUTAGE_REVIEW }).summary).toMatch(/^This text concerns payment gateway/);
    expect(succeed({ sourceType: '<script>', content: OUTAGE_REVIEW }).summary).toMatch(/^This text concerns/);
  });

  it('carries the lane’s shared fields and a completed specialist contract', () => {
    const result = succeed({ sourceType: 'report', content: MIGRATION_REPORT });
    expect(result).toMatchObject({ success: true, format: 'executive_summary', sourceType: 'report', sentenceCount: 6 });
    expect(result.operatorSummary).toMatch(/^Summarized a \d+-word report \(6 sentences\) into \d sentences? about database migration and rollback/);
    expect(result.recommendedNextActions.length).toBeGreaterThan(0);
    expect(result.specialistContract).toEqual({
      role: 'summarization-agent',
      workflowStage: 'summarize',
      deliverable: 'extractive summary',
      status: 'completed',
      refusalReason: null,
      escalationReason: null,
    });
  });
});

describe('summarizeContent: a long multi-paragraph text', () => {
  const result = succeed({ sourceType: 'incident review', content: OUTAGE_REVIEW });
  const source = sentencesOf(OUTAGE_REVIEW);

  it('is much shorter than the source', () => {
    expect(result.sentenceCount).toBe(source.length);
    expect(result.selectedSentenceCount).toBeLessThan(result.sentenceCount / 2);
    expect(result.compressionRatio).toBeLessThan(0.5);
    expect(result.summary.length).toBeLessThan(OUTAGE_REVIEW.length / 2);
  });

  it('keeps the key sentences, word for word and in source order, and leaves out the noise', () => {
    const keySentence = 'On 3 March the payment gateway rejected card payments for 47 minutes after a certificate on the gateway load balancer expired.';
    const rootCause = 'Certificate renewal for the payment gateway was still a manual task in a shared calendar.';
    expect(result.summary).toContain(keySentence);
    expect(result.summary).toContain(rootCause);
    expect(result.summary.indexOf(keySentence)).toBeLessThan(result.summary.indexOf(rootCause));
    expect(result.summary).not.toMatch(/office party|Parking/);
    expect(result.topic).toBe('payment gateway and certificate');
  });

  it('honours maxSentences', () => {
    expect(succeed({ content: OUTAGE_REVIEW, maxSentences: 2 }).selectedSentenceCount).toBe(2);
    expect(succeed({ content: OUTAGE_REVIEW, maxSentences: 50 }).selectedSentenceCount).toBe(source.length);
  });
});

describe('summarizeContent: formats', () => {
  it('gives bullets as a list and as "- " lines, without the topic sentence', () => {
    const bullets = succeed({ content: OUTAGE_REVIEW, format: 'bullets', maxSentences: 3 });
    expect(bullets.bullets).toHaveLength(3);
    expect(bullets.summary).toBe(bullets.bullets!.map((b) => `- ${b}`).join('\n'));
    for (const bullet of bullets.bullets!) expect(sentencesOf(OUTAGE_REVIEW)).toContain(bullet);
  });

  it('gives the executive summary as one paragraph with no bullets field', () => {
    const paragraph = succeed({ content: OUTAGE_REVIEW, format: 'executive_summary', maxSentences: 3 });
    expect(paragraph).not.toHaveProperty('bullets');
    expect(paragraph.summary).not.toContain('\n');
    const bullets = succeed({ content: OUTAGE_REVIEW, format: 'bullets', maxSentences: 3 });
    // Both formats pick the same sentences; only the presentation differs.
    for (const bullet of bullets.bullets!) expect(paragraph.summary).toContain(bullet.replace(/[.]?$/, ''));
  });
});

describe('summarizeContent: refusals (only whitespace content; the schema refuses the rest first)', () => {
  it('refuses content that holds only whitespace', () => {
    const reason = 'payload.content holds only whitespace: there is no text to summarize';
    expect(summarizeContent({ content: '   \n ' })).toEqual({
      success: false,
      error: reason,
      operatorSummary: `Refused: ${reason}`,
      recommendedNextActions: [expect.stringContaining('payload.content')],
      specialistContract: {
        role: 'summarization-agent',
        workflowStage: 'summarize',
        deliverable: 'extractive summary',
        status: 'refused',
        refusalReason: reason,
        escalationReason: null,
      },
    });
  });

  it.each([
    ['missing content', {}, '/content is required'],
    ['empty content', { content: '' }, '/content must not have fewer than 1 characters'],
    ['non-string content', { content: 42 }, '/content must be string'],
    ['an unknown format', { content: MIGRATION_REPORT, format: 'haiku' }, '/format must be one of: executive_summary, bullets'],
    ['a bad maxSentences', { content: MIGRATION_REPORT, maxSentences: 0 }, '/maxSentences must be >= 1'],
    ['a non-string sourceType', { content: MIGRATION_REPORT, sourceType: 7 }, '/sourceType must be string'],
  ])('never runs on %s: the worker refuses it with the schema check admission applies', async (_label, payload, problem) => {
    const result = await defineLane('summarize-content', summarizeContent).run(payload, { workspaceRoot: '/srv/workspace', runId: null });
    expect(result).toMatchObject({ success: false, error: `payload refused: ${problem}`, taskType: 'summarize-content' });
  });
});

describe('summarizeContent: content shorter than a summary', () => {
  const SHORT = 'Text to summarize. It has two sentences.';

  it('returns the text itself as the executive summary, with a note saying so', () => {
    const result = succeed({ content: `  ${SHORT}\n` });
    expect(result).toMatchObject({
      format: 'executive_summary',
      summary: SHORT,
      note: 'content is shorter than a summary; returned as written',
      sentenceCount: 2,
      selectedSentenceCount: 2,
      wordCount: 7,
      compressionRatio: 1,
    });
    expect(result).not.toHaveProperty('bullets');
    expect(result.specialistContract.status).toBe('completed');
    expect(result.operatorSummary).toBe('Returned the 7-word text (2 sentences) as written: it is shorter than a summary.');
  });

  it('gives one bullet per sentence in bullets format (the README example)', () => {
    const result = succeed({ content: SHORT, format: 'bullets' });
    expect(result.bullets).toEqual(['Text to summarize.', 'It has two sentences.']);
    expect(result.summary).toBe('- Text to summarize.\n- It has two sentences.');
    expect(result.note).toBe('content is shorter than a summary; returned as written');
  });

  it('ignores maxSentences, because dropping sentences from a short text loses what it says', () => {
    expect(succeed({ content: 'The deploy finished. Nothing broke.', format: 'bullets', maxSentences: 1 }).bullets).toEqual([
      'The deploy finished.',
      'Nothing broke.',
    ]);
  });

  it('answers even content with no distinctive terms, and never adds a note to a real summary', () => {
    expect(succeed({ content: '42', format: 'bullets' })).toMatchObject({ bullets: ['42'], summary: '- 42', keywords: [] });
    expect(succeed({ content: OUTAGE_REVIEW })).not.toHaveProperty('note');
  });
});

describe('summarizeContent: determinism', () => {
  it('gives the same output for the same input', () => {
    const payload = { sourceType: 'report', content: OUTAGE_REVIEW, format: 'bullets' } as const;
    const first = JSON.stringify(summarizeContent(payload));
    for (let i = 0; i < 3; i += 1) expect(JSON.stringify(summarizeContent({ ...payload }))).toBe(first);
  });
});

describe('sentence splitting', () => {
  it('does not split at abbreviations, initials or decimals, but does at sentence ends', () => {
    const text =
      'Dr. Patel moved 3.2 TB of data on 14 Sept. The move used e.g. the bulk API. J. R. Smith signed off at approx. 9 pm. Was it fast? Yes! See Fig. 2 for details.';
    expect(sentencesOf(text)).toEqual([
      'Dr. Patel moved 3.2 TB of data on 14 Sept.',
      'The move used e.g. the bulk API.',
      'J. R. Smith signed off at approx. 9 pm.',
      'Was it fast?',
      'Yes!',
      'See Fig. 2 for details.',
    ]);
  });

  it('joins wrapped lines, and makes bullets and headings units of their own', () => {
    const units = splitSentences('# Status\n\nThe rollout reached\nevery region today. It was quiet.\n\nNext steps:\n- Remove the flag\n* Tell support\n1. Close the ticket');
    expect(units.map((u) => [u.heading, u.text])).toEqual([
      [true, 'Status'],
      [false, 'The rollout reached every region today.'],
      [false, 'It was quiet.'],
      [true, 'Next steps'],
      [false, 'Remove the flag'],
      [false, 'Tell support'],
      [false, 'Close the ticket'],
    ]);
  });
});

describe('keywords', () => {
  const units = (text: string) => splitSentences(text).map((u) => ({ heading: u.heading, tokens: tokenize(u.text) }));

  it('prefers a recurring two-word phrase over its words alone, and does not repeat them', () => {
    const keywords = rankKeywords(units('Database migration is hard. Plan the database migration early. Test the database migration twice.'));
    expect(keywords[0]!.phrase).toBe('database migration');
    expect(keywords.map((k) => k.phrase)).not.toContain('database');
    expect(keywords.map((k) => k.phrase)).not.toContain('migration');
  });

  it('never joins words across a stopword, and folds plurals', () => {
    const keywords = rankKeywords(units('Migrations and rollbacks. The migration failed. A rollback followed the migration. The rollback worked.'));
    expect(keywords.map((k) => k.phrase).slice(0, 2)).toEqual(['migration', 'rollback']);
    expect(topicOf(keywords)).toBe('migration and rollback');
  });
});
