import { describe, expect, it } from 'vitest';
import { generateContent, type ContentSuccess } from '../../../agents/content-agent/generate.js';
import { CONTENT_TYPES, LENGTHS, STYLES } from '../../../agents/content-agent/input.js';
import { defineLane, type LanePayload } from '../../../src/worker-sdk/lane-definition.js';
import type { LaneRefusal } from '../../../src/worker-sdk/lane-result.js';

const LEDGER = {
  name: 'Ledger API',
  description:
    'Ledger API records customer invoices and reconciles card payments every night. It is rolling out to the EU region this week. ' +
    'During the rollout, invoice exports may be delayed by up to an hour. Users must re-authenticate their API tokens after the switch; ' +
    'old tokens stop working. The reconciliation report now includes refunds.',
};

/** A description that says what the thing is and nothing about impact, actions or status. */
const GLOSSARY = {
  name: 'Glossary Service',
  description: 'Glossary Service keeps the shared list of product terms. Each term carries a short definition and an owner.',
};

function written(payload: LanePayload<'content-generate'>): ContentSuccess {
  const result = generateContent(payload);
  if (!result.success) throw new Error(`expected text, got a refusal: ${(result as LaneRefusal).error}`);
  return result;
}

function section(result: ContentSuccess, heading: string): string {
  const found = result.sections.find((s) => s.heading === heading);
  if (!found) throw new Error(`no section ${heading} in ${result.sections.map((s) => s.heading).join(', ')}`);
  return found.text;
}

describe('content-generate writes from its source', () => {
  it('writes an operator notice that names the source and files each sentence of the description under What, Impact and Action', () => {
    const result = written({ type: 'operator-notice', style: 'technical', length: 'short', source: LEDGER });
    expect(result.title).toBe('Notice: Ledger API');
    expect(result.sections.map((s) => s.heading)).toEqual(['What', 'Impact', 'Action']);
    expect(section(result, 'What')).toBe(
      'This notice concerns Ledger API. Ledger API records customer invoices and reconciles card payments every night.',
    );
    expect(section(result, 'Impact')).toBe('During the rollout, invoice exports may be delayed by up to an hour.');
    expect(section(result, 'Action')).toBe('Users must re-authenticate their API tokens after the switch; old tokens stop working.');
    expect(result.content.startsWith('# Notice: Ledger API\n\n## What\n\nThis notice concerns Ledger API.')).toBe(true);
    expect(result.wordCount).toBe(48);
  });

  it('adds detail with length: a long notice uses every sentence once, names "It" by the source, and quotes its material', () => {
    const result = written({ type: 'operator-notice', style: 'technical', length: 'long', source: LEDGER });
    expect(result.sections.map((s) => s.heading)).toEqual(['What', 'Impact', 'Action', 'Details', 'Reference']);
    expect(section(result, 'What')).toContain('The reconciliation report now includes refunds.');
    expect(section(result, 'Details')).toBe('Ledger API is rolling out to the EU region this week.');
    expect(section(result, 'Reference')).toContain(`> ${LEDGER.description}`);
    expect(result.material).toEqual({ source: 'payload.source.description', descriptionSentences: 5, sentencesUsed: 5, silentOn: [] });
  });

  it('gives a readme Overview, Usage and Status sections, and key phrases of the description as features', () => {
    const short = written({ type: 'readme', style: 'technical', length: 'short', source: LEDGER });
    expect(short.sections.map((s) => s.heading)).toEqual(['Overview', 'Usage', 'Status']);
    expect(section(short, 'Usage')).toBe('Users must re-authenticate their API tokens after the switch; old tokens stop working.');
    expect(section(short, 'Status')).toBe('Ledger API is rolling out to the EU region this week.');
    const medium = written({ type: 'readme', style: 'technical', length: 'medium', source: LEDGER });
    expect(medium.sections.map((s) => s.heading)).toEqual(['Overview', 'Features', 'Usage', 'Status', 'Details']);
    expect(section(medium, 'Features').split('\n')).toEqual([
      '- Ledger API records customer invoices and reconciles card payments every night',
      '- Ledger API is rolling out to the EU region this week',
      '- During the rollout, invoice exports may be delayed by up to an hour',
      '- Users must re-authenticate their API tokens after the switch',
    ]);
  });

  it('builds release notes, status updates and FAQs from the same material', () => {
    const release = written({ type: 'release-notes', style: 'technical', length: 'medium', source: LEDGER });
    expect(release.type).toBe('release-note');
    expect(release.sections.map((s) => s.heading)).toEqual(['Summary', 'Changes', 'Impact', 'Upgrade notes']);
    expect(section(release, 'Changes')).toBe('- Ledger API is rolling out to the EU region this week\n- The reconciliation report now includes refunds');
    const status = written({ type: 'status-update', style: 'internal', length: 'short', source: LEDGER });
    expect(status.sections.map((s) => s.heading)).toEqual(['Summary', 'Progress', 'Next steps']);
    const faq = written({ type: 'faq', style: 'client-facing', length: 'medium', source: LEDGER });
    expect(faq.sections.map((s) => s.heading)).toEqual(['What is Ledger API?', 'What does Ledger API do?', 'How does Ledger API affect me?', 'Do I need to do anything?']);
    expect(section(faq, 'Do I need to do anything?')).toBe('You must re-authenticate your API tokens after the switch; old tokens stop working.');
  });

  it('changes person and vocabulary with the style', () => {
    const client = written({ type: 'operator-notice', style: 'client-facing', length: 'short', source: LEDGER });
    const internal = written({ type: 'operator-notice', style: 'internal', length: 'short', source: LEDGER });
    const technical = written({ type: 'operator-notice', style: 'technical', length: 'short', source: LEDGER });
    expect(section(client, 'What')).toMatch(/^We want to keep you informed about Ledger API\./);
    expect(section(client, 'Action')).toBe('You must re-authenticate your API tokens after the switch; old tokens stop working.');
    expect(section(internal, 'What')).toMatch(/^Heads-up for the team: this notice is about Ledger API\./);
    expect(technical.content).not.toMatch(/\byou\b/i);
    const ops = written({ type: 'status-update', style: 'internal', source: { name: 'Backup job', description: 'Backup job copies the orders database to cold storage nightly. Operators should rotate their keys before Friday.' } });
    expect(section(ops, 'Next steps')).toBe('We should rotate our keys before Friday.');
  });

  it('says plainly what the description does not cover instead of inventing it', () => {
    const result = written({ type: 'operator-notice', style: 'technical', length: 'medium', source: GLOSSARY });
    expect(section(result, 'Impact')).toBe('The source states no impact for Glossary Service.');
    expect(section(result, 'Action')).toBe('The source lists no required action for Glossary Service.');
    expect(section(result, 'What')).toBe(
      'This notice concerns Glossary Service. Glossary Service keeps the shared list of product terms. Each term carries a short definition and an owner.',
    );
    expect(result.material.silentOn).toEqual(['impact', 'action']);
    expect(result.recommendedNextActions[1]).toBe(
      'The description says nothing about impact, action; add that to source.description and generate again if the text should cover it.',
    );
  });

  it.each(CONTENT_TYPES.flatMap((type) => STYLES.map((style) => [type, style] as const)))(
    'writes longer %s text in %s style as length grows, always naming the source and using its description',
    (type, style) => {
      for (const source of [LEDGER, GLOSSARY, { name: 'Tiny CLI', description: 'A tiny tool for people.' }]) {
        const counts = LENGTHS.map((length) => {
          const result = written({ type, style, length, source });
          expect(result.content).toContain(source.name);
          expect(result.content).toContain(source.description.split('. ')[0]!.replace(/\.$/, ''));
          return result.wordCount;
        });
        expect(counts[0]).toBeLessThan(counts[1]!);
        expect(counts[1]).toBeLessThan(counts[2]!);
      }
    },
  );

  it('is deterministic: the same payload gives the same text', () => {
    const payload = { type: 'faq', style: 'internal', length: 'long', source: LEDGER };
    expect(generateContent(payload)).toEqual(generateContent(structuredClone(payload)));
  });

  it('defaults to a medium operator notice in the internal voice', () => {
    const result = written({ source: LEDGER });
    expect([result.type, result.style, result.length]).toEqual(['operator-notice', 'internal', 'medium']);
  });
});

describe('content-generate refusals', () => {
  it.each([
    [{}, 'payload refused: /source is required'],
    [{ source: { description: LEDGER.description } }, 'payload refused: /source/name is required'],
    [{ type: 7, source: LEDGER }, 'payload refused: /type must be string'],
  ])('refuses %j before the lane runs, with the schema check admission applies', async (payload, reason) => {
    const result = await defineLane('content-generate', generateContent).run(payload, { workspaceRoot: '/srv/workspace', runId: null });
    expect(result).toMatchObject({ success: false, error: reason, specialistContract: { status: 'refused', refusalReason: reason } });
  });

  it.each([
    [{ source: { name: '  ', description: LEDGER.description } }, 'payload.source.name is blank: the text must name its subject'],
    [{ source: { name: 'Ledger API', description: '  ' } }, 'payload.source.description is blank: the text is written from it, and nothing is made up in its place'],
    [{ source: { name: 'Ledger API', description: 'Invoices.' } }, 'payload.source.description is too short to write from (1 word; at least 3)'],
    [{ type: 'poem', source: LEDGER }, 'unknown type "poem": use one of operator-notice, readme, release-note, status-update, faq'],
    [{ style: 'pirate', source: LEDGER }, 'unknown style "pirate": use one of client-facing, technical, internal'],
    [{ length: 'epic', source: LEDGER }, 'unknown length "epic": use one of short, medium, long'],
  ])('refuses %j with its reason', (payload, reason) => {
    const result = generateContent(payload);
    expect(result).toMatchObject({ success: false, error: reason, specialistContract: { status: 'refused', refusalReason: reason } });
  });
});
