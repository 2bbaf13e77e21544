import { describe, expect, it } from 'vitest';
import { generateContent } from '../../../agents/content-agent/generate.js';
import { generateWithModel } from '../../../agents/content-agent/provider-draft.js';
import type { LanePayload } from '../../../src/worker-sdk/lane-definition.js';
import type { ChatMessage } from '../../../src/worker-sdk/model.js';
import { scriptedModel } from '../../support/scripted-model.js';

const LEDGER = {
  name: 'Ledger API',
  description:
    'Ledger API records customer invoices and reconciles card payments every night. It is rolling out to the EU region this week. ' +
    'During the rollout, invoice exports may be delayed by up to an hour. Users must re-authenticate their API tokens after the switch; ' +
    'old tokens stop working. The reconciliation report now includes refunds.',
};
const PAYLOAD: LanePayload<'content-generate'> = { type: 'operator-notice', style: 'technical', length: 'medium', source: LEDGER };

/** The headings the lane asked for, read back from its prompt. */
const askedHeadings = (messages: ChatMessage[]) => messages[1]!.content.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3));

/** A model that writes every asked section from the description's facts. */
function draftFrom(messages: ChatMessage[]): string {
  const facts = [
    'Ledger API is rolling out to the EU region this week.',
    'Invoice exports may be delayed by up to an hour during the rollout.',
    'You must re-authenticate your API tokens after the switch; old tokens stop working.',
    'The reconciliation report now includes refunds.',
  ];
  return ['# Ledger API notice', ...askedHeadings(messages).map((h, i) => `## ${h}\n\n${facts[i % facts.length]}`)].join('\n\n');
}

async function generated(model: ReturnType<typeof scriptedModel>['model'] | undefined) {
  const result = await generateWithModel(PAYLOAD, { model });
  if (!result.success) throw new Error('expected text');
  return result as Extract<typeof result, { success: true }>;
}

describe('content-generate with a model', () => {
  it('on the provider path the model drafts every planned section from the source, and the result says so', async () => {
    const scripted = scriptedModel((messages) => draftFrom(messages));
    const result = await generated(scripted.model);
    const deterministic = generateContent(PAYLOAD) as Extract<ReturnType<typeof generateContent>, { success: true }>;

    // The model was given the source and the plan's sections, in order.
    expect(scripted.prompt()).toContain(LEDGER.description);
    expect(askedHeadings(scripted.requests[0]!.messages)).toEqual(deterministic.sections.map((s) => s.heading));
    expect(result.generation).toEqual({ path: 'provider', model: 'small-model' });
    expect(result.sections.map((s) => s.heading)).toEqual(deterministic.sections.map((s) => s.heading));
    expect(result.content).toContain('EU region');
    expect(result.content).toContain('re-authenticate your API tokens');
    expect(result.content).toContain('up to an hour');
    expect(result.content.startsWith(`# ${deterministic.title}\n`)).toBe(true);
    expect(result.content).not.toBe(deterministic.content);
  });

  it('keeps the deterministic text when the draft drops a planned section, and names it', async () => {
    const scripted = scriptedModel((messages) => draftFrom(messages).split('\n\n## ').slice(0, 2).join('\n\n## '));
    const result = await generated(scripted.model);
    const deterministic = generateContent(PAYLOAD) as { content: string };
    expect(result.generation).toMatchObject({ path: 'deterministic', reason: expect.stringMatching(/lacks the required sections? "/) });
    expect(result.content).toBe(deterministic.content);
    expect(result.content).toContain('Ledger API');
  });

  it('keeps the deterministic text when the draft invents a date or figure', async () => {
    const result = await generated(scriptedModel((messages) => `${draftFrom(messages)}\n\nThe switch happens on 14 June at 02:00.`).model);
    expect(result.generation).toMatchObject({ path: 'deterministic', reason: expect.stringContaining('figures its material does not') });
    expect(result.content).toBe((generateContent(PAYLOAD) as { content: string }).content);
  });

  it('falls back when the provider failed after retries, saying so', async () => {
    const result = await generated(scriptedModel(() => ({ refusal: 'provider-failed', detail: 'provider error (500) after 3 tries' })).model);
    expect(result.generation).toEqual({ path: 'deterministic', model: 'small-model', reason: 'provider-failed: provider error (500) after 3 tries' });
    expect(result.content).toContain('re-authenticate');
  });
});
