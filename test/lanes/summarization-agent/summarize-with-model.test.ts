import { describe, expect, it } from 'vitest';
import { summarizeWithModel } from '../../../agents/summarization-agent/abstractive.js';
import { summarizeContent } from '../../../agents/summarization-agent/summarize.js';
import { MIGRATION_REPORT } from '../../support/summarize-texts.js';
import { scriptedModel } from '../../support/scripted-model.js';

const ABSTRACT =
  'The database migration moved customer records to the managed service on schedule: the rehearsed rollback plan was never needed and replication lag stayed below two seconds.';

/** The deterministic path's summary of the same source. */
const EXTRACTIVE = (summarizeContent({ content: MIGRATION_REPORT, sourceType: 'report' }) as { summary: string }).summary;

async function summarized(model: ReturnType<typeof scriptedModel>['model'] | undefined, format: 'executive_summary' | 'bullets' = 'executive_summary') {
  const result = await summarizeWithModel({ content: MIGRATION_REPORT, sourceType: 'report', format }, { model });
  if (!result.success) throw new Error('expected a summary');
  return result as Extract<typeof result, { success: true }>;
}

describe('summarize-content with a model', () => {
  it('on the provider path the summary is the model’s abstract of the source, the extractive one kept beside it', async () => {
    const scripted = scriptedModel(() => ABSTRACT);
    const result = await summarized(scripted.model);

    // The source itself went to the model, as data.
    expect(scripted.prompt()).toContain('During the database migration, replication lag stayed below two seconds.');
    expect(scripted.requests[0]!.maxTokens).toBeLessThanOrEqual(500);
    expect(result.generation).toEqual({ path: 'provider', model: 'small-model' });
    expect(result.summary).toBe(ABSTRACT);
    expect(result.summary).toContain('replication lag stayed below two seconds');
    expect(result.extractiveSummary).toBe(EXTRACTIVE);
    expect(result.topic).toContain('database migration');
    expect(result.operatorSummary).toContain('small-model');
  });

  it('bullets from the model become the bullets of the result', async () => {
    const scripted = scriptedModel(() => '- The database migration moved customer records to the managed service.\n- No rollback was needed; the migration closed on schedule.');
    const result = await summarized(scripted.model, 'bullets');
    expect(result.generation?.path).toBe('provider');
    expect(result.bullets).toEqual(['The database migration moved customer records to the managed service.', 'No rollback was needed; the migration closed on schedule.']);
    expect(result.summary.split('\n').every((line) => line.startsWith('- '))).toBe(true);
  });

  it('falls back to the extractive summary when the model states a figure the source lacks, saying why', async () => {
    const result = await summarized(scriptedModel(() => 'The database migration finished in 45 minutes with no rollback.').model);
    expect(result.generation).toMatchObject({ path: 'deterministic', model: 'small-model', reason: expect.stringContaining('figures its material does not (45)') });
    // The extractive summary: sentences of the source, topic first.
    expect(result.summary).toMatch(/^This report concerns database migration/);
    expect(result.summary).toContain('No rollback was needed, and the database migration closed on schedule.');
    expect(result.summary).toBe(EXTRACTIVE);
    expect(result.extractiveSummary).toBeUndefined();
  });

  it('falls back when the answer is about something else, too long, or shaped like a credential', async () => {
    const offTopic = await summarized(scriptedModel(() => 'The cafeteria changed its menu.').model);
    expect(offTopic.generation).toMatchObject({ path: 'deterministic', reason: expect.stringContaining('leading terms') });
    const long = await summarized(scriptedModel(() => 'database migration '.repeat(200)).model);
    expect(long.generation).toMatchObject({ path: 'deterministic', reason: expect.stringContaining('over the cap') });
    const leaky = await summarized(scriptedModel(() => 'The database migration used key sk-abcdefghijklmnopqrstuvwx.').model);
    expect(leaky.generation).toMatchObject({ path: 'deterministic', reason: expect.stringContaining('credential') });
    expect(leaky.summary).not.toContain('sk-');
  });

  it('falls back when the service refuses (budget spent) or gave no channel, and says which', async () => {
    const spent = await summarized(scriptedModel(() => ({ refusal: 'budget-exhausted', detail: 'the daily model budget (1 USD) cannot cover this call' })).model);
    expect(spent.generation).toEqual({ path: 'deterministic', model: 'small-model', reason: 'budget-exhausted: the daily model budget (1 USD) cannot cover this call' });
    expect(spent.summary).toBe(EXTRACTIVE);
    const none = await summarized(undefined);
    expect(none.generation).toEqual({ path: 'deterministic', reason: 'no model channel was given to this attempt' });
  });

  it('sends nothing for a text shorter than a summary', async () => {
    const scripted = scriptedModel(() => 'unused');
    const result = await summarizeWithModel({ content: 'Deploys are frozen until Monday.' }, { model: scripted.model });
    expect(scripted.requests).toHaveLength(0);
    expect(result).toMatchObject({ success: true, summary: 'Deploys are frozen until Monday.', generation: { path: 'deterministic' } });
  });
});
