import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { apiClient, waitForTerminal } from '../support/http.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { MIGRATION_REPORT } from '../support/summarize-texts.js';

const PROVIDER_KEY = 'sk-service-models-test-key-0123456789';
const ABSTRACT =
  'The database migration moved customer records to the managed service on schedule: the rehearsed rollback plan was never needed and replication lag stayed below two seconds.';

let fake: FakeOpenAi;
let service: ServiceProcess;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  service = await startService({
    baseDir: tempDir('service-models-'),
    config: {
      schedulerEnabled: false,
      llm: {
        models: { standard: 'small-model', advanced: 'big-model' },
        prices: { 'small-model': { inputPerMillionTokensUsd: 2, outputPerMillionTokensUsd: 8 } },
        dailyBudgetUsd: 1,
        timeoutMs: 2_000,
        maxRetries: 1,
        // The fake provider listens on loopback.
        allowPrivateBaseUrl: true,
      },
    },
    env: { OPENAI_API_KEY: PROVIDER_KEY, OPENAI_BASE_URL: fake.baseUrl },
  });
  api = apiClient(service.url);
}, 30_000);

afterAll(async () => {
  await service?.kill();
  await fake?.close();
});

describe('models through the running service (real agents, fake provider)', () => {
  it('a summarize-content run takes the provider path, is metered, and the dashboard and health roll it up', async () => {
    fake.script({ text: ABSTRACT, usage: { prompt_tokens: 800, completion_tokens: 60 } });
    const trigger = await api.trigger('summarize-content', { content: MIGRATION_REPORT, sourceType: 'report' });
    expect(trigger.status).toBe(202);
    const run = await waitForTerminal(api, trigger.body.runId, 30_000);

    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({ summary: ABSTRACT, generation: { path: 'provider', model: 'small-model' } });
    expect(fake.received).toHaveLength(1);
    expect(fake.received[0]!.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(fake.received[0]!.body.messages.map((m) => m.content).join('\n')).toContain('replication lag stayed below two seconds');
    // 800 in at 2 USD/M + 60 out at 8 USD/M
    expect(run.accounting).toMatchObject({ model: 'small-model', metered: true, costUsd: 0.00208, usage: { inputTokens: 800, outputTokens: 60, totalTokens: 860 }, budget: { limitUsd: 1, remainingUsd: 0.99792 } });
    expect(run.modelCalls).toEqual([expect.objectContaining({ model: 'small-model', outcome: 'ok', lane: 'summarize-content', tries: 1 })]);
    expect(JSON.stringify(run)).not.toContain(PROVIDER_KEY);

    const dashboard = await api.get('/api/dashboard/overview');
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.accounting).toMatchObject({ meteredRuns: 1, modelCalls: 1, currentBudget: { limitUsd: 1, remainingUsd: 0.99792 } });
    expect(dashboard.body.accounting.byModel).toContainEqual(
      expect.objectContaining({ model: 'small-model', runs: 1, calls: 1, inputTokens: 800, outputTokens: 60, costUsd: 0.00208 }),
    );
    const health = await api.get('/api/health/extended');
    expect(health.body.accounting).toMatchObject({ meteredRuns: 1, tokens: { inputTokens: 800, outputTokens: 60 } });
  });

  it('a content-generate run whose provider keeps failing falls back to its deterministic text, and the failed calls are metered', async () => {
    fake.script({ status: 500 }, { status: 502 });
    const source = { name: 'Ledger API', description: 'Ledger API records customer invoices. It is rolling out to the EU region this week. Users must re-authenticate their API tokens after the switch.' };
    const trigger = await api.trigger('content-generate', { type: 'operator-notice', style: 'technical', length: 'short', source });
    const run = await waitForTerminal(api, trigger.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result.generation).toMatchObject({ path: 'deterministic', reason: expect.stringContaining('provider-failed') });
    expect(run.result.content).toContain('Users must re-authenticate their API tokens after the switch.');
    expect(run.accounting).toMatchObject({ metered: true, costUsd: 0, note: expect.stringContaining('1 failed') });
    expect(run.modelCalls).toEqual([expect.objectContaining({ outcome: 'failed', tries: 2 })]);
  });

  it('a lane that runs locally makes no call and stays unmetered; the agents overview shows tiers and models', async () => {
    const before = fake.received.length;
    const trigger = await api.trigger('normalize-data', { records: [{ name: ' Ada ' }], schema: { name: 'string' } });
    const run = await waitForTerminal(api, trigger.body.runId, 30_000);
    expect(fake.received.length).toBe(before);
    expect(run.accounting).toMatchObject({ metered: false, model: 'local-deterministic', note: expect.stringContaining('unmetered') });

    const overview = await api.get('/api/agents/overview');
    const agent = (id: string) => overview.body.agents.find((a: { id: string }) => a.id === id);
    expect(agent('summarization-agent')).toMatchObject({ modelTier: 'standard', model: 'small-model' });
    expect(agent('community-helper')).toMatchObject({ modelTier: 'standard', model: 'small-model' });
    expect(agent('security-agent')).toMatchObject({ modelTier: 'local', model: null });
  });

  it('never writes the provider key to its logs', () => {
    expect(service.output.join('\n')).not.toContain(PROVIDER_KEY);
  });
});
