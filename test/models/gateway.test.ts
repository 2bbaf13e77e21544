import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { LlmConfig } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { createModels } from '../../src/models/index.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { accountingFor } from '../../src/runtime/accounting.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir } from '../support/config.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { admittedRun, insertIfAbsent, markRunning } from '../support/runs.js';

const PROVIDER_KEY = 'sk-test-provider-key-0123456789abcdef';
const STANDARD = { tier: 'standard' as const, provider: null, name: null };
const registry = agentRegistry([
  registeredAgent('summarization-agent', ['summarize-content'], { model: STANDARD }),
  registeredAgent('security-agent', ['security-audit'], { model: STANDARD }),
  registeredAgent('normalization-agent', ['normalize-data']),
]);
const messages = [{ role: 'user' as const, content: 'Summarize: the database migration finished in 42 minutes.' }];

let fake: FakeOpenAi | null = null;
let store: StateStore | null = null;
afterEach(async () => {
  await fake?.close();
  await store?.close();
  fake = null;
  store = null;
});

async function setup(llm: Partial<LlmConfig> = {}) {
  fake = await startFakeOpenAi();
  store = openStateStore(join(tempDir('models-'), 'state.json'));
  await store.open();
  const config: LlmConfig = {
    apiKey: PROVIDER_KEY,
    baseUrl: fake.baseUrl,
    models: { standard: 'small-model', advanced: 'big-model' },
    prices: { 'small-model': { inputPerMillionTokensUsd: 1, outputPerMillionTokensUsd: 4 } },
    dailyBudgetUsd: null,
    timeoutMs: 2_000,
    maxRetries: 2,
    // The fake provider listens on loopback.
    allowPrivateBaseUrl: true,
    ...llm,
  };
  const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
  const models = createModels({ config, store, coordination, clock: systemClock, logger: pino({ level: 'silent' }), registry, secrets: ['webhook-secret-of-the-service'] });
  const runId = `run-${Math.random().toString(36).slice(2)}`;
  await store.mutateRun(runId, insertIfAbsent(markRunning(admittedRun({ runId, type: 'summarize-content' }))));
  const request = { runId, attempt: 1, lane: 'summarize-content', messages, maxTokens: 200 };
  return { fake, store, models, runId, request };
}

describe('model gateway against an OpenAI-compatible provider', () => {
  it('makes the call with the key, meters its tokens and cost into the run, and the run accounting sums them', async () => {
    const { fake, store, models, runId, request } = await setup({ dailyBudgetUsd: 1 });
    fake.script({ text: 'The migration finished in 42 minutes.', usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const answer = await models.gateway.complete(request);

    expect(answer).toMatchObject({ ok: true, text: 'The migration finished in 42 minutes.', model: 'small-model', inputTokens: 1000, outputTokens: 500, costUsd: 0.003 });
    expect(fake.received).toHaveLength(1);
    expect(fake.received[0]!.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(fake.received[0]!.body).toMatchObject({ model: 'small-model', max_tokens: 200, messages });

    const run = await store.getRun(runId);
    expect(run!.modelCalls).toEqual([
      expect.objectContaining({ attempt: 1, lane: 'summarize-content', model: 'small-model', outcome: 'ok', inputTokens: 1000, outputTokens: 500, costUsd: 0.003, tries: 1, error: null, budget: { limitUsd: 1, remainingUsd: 0.997 } }),
    ]);
    expect(run!.events.at(-1)).toMatchObject({ kind: 'execution', name: 'model-call', detail: 'small-model ok: 1000 in, 500 out, 0.003 USD, 1 try' });
    expect(accountingFor(run!.modelCalls, 1234)).toMatchObject({
      model: 'small-model',
      metered: true,
      costUsd: 0.003,
      latencyMs: 1234,
      usage: { inputTokens: 1000, outputTokens: 500, totalTokens: 1500 },
      budget: { limitUsd: 1, remainingUsd: 0.997 },
    });
    expect(await models.budget.remainingUsd()).toBe(0.997);
  });

  it('waits out a 429 with Retry-After and then succeeds, recording one call of two tries', async () => {
    const { fake, store, models, runId, request } = await setup();
    fake.script({ status: 429, headers: { 'retry-after': '1' } }, { text: 'ok after the limit' });
    const started = Date.now();
    const answer = await models.gateway.complete(request);
    expect(answer).toMatchObject({ ok: true, text: 'ok after the limit' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fake.received).toHaveLength(2);
    expect((await store.getRun(runId))!.modelCalls).toEqual([expect.objectContaining({ outcome: 'ok', tries: 2 })]);
  });

  it('retries 5xx and malformed answers up to maxRetries, then refuses with provider-failed and records the failed call', async () => {
    const { fake, store, models, runId, request } = await setup({ maxRetries: 2 });
    fake.script({ raw: 'not json at all' }, { status: 500 }, { status: 503 });
    fake.fallback = () => ({ text: 'never reached' });
    const answer = await models.gateway.complete(request);
    expect(answer).toMatchObject({ ok: false, refusal: 'provider-failed', model: 'small-model' });
    expect(answer.ok === false && answer.detail).toContain('after 3 tries');
    expect(fake.received).toHaveLength(3);
    const [call] = (await store.getRun(runId))!.modelCalls!;
    expect(call).toMatchObject({ outcome: 'failed', tries: 3, inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(accountingFor([call!], 10)).toMatchObject({ metered: true, costUsd: 0, note: expect.stringContaining('1 failed') });
  });

  it('refuses a base URL on loopback without llm.allowPrivateBaseUrl, sending nothing and trying once; calls it with the setting', async () => {
    const refused = await setup({ allowPrivateBaseUrl: false, maxRetries: 2 });
    const answer = await refused.models.gateway.complete(refused.request);
    expect(answer).toMatchObject({ ok: false, refusal: 'provider-failed' });
    expect(answer.ok === false && answer.detail).toContain(
      'base URL refused: 127.0.0.1 is a loopback address; private hosts are not allowed (llm.allowPrivateBaseUrl is false)',
    );
    expect(refused.fake.received).toHaveLength(0);
    expect((await refused.store.getRun(refused.runId))!.modelCalls).toEqual([expect.objectContaining({ outcome: 'failed', tries: 1 })]);
    await refused.fake.close();
    await refused.store.close();

    const allowed = await setup({ allowPrivateBaseUrl: true });
    expect(await allowed.models.gateway.complete(allowed.request)).toMatchObject({ ok: true, text: 'A fixed answer.' });
    expect(allowed.fake.received).toHaveLength(1);
  });

  it('treats a provider slower than timeoutMs as a failed try', async () => {
    const { fake, models, request } = await setup({ timeoutMs: 300, maxRetries: 1 });
    fake.fallback = () => ({ text: 'too late', delayMs: 2_000 });
    const answer = await models.gateway.complete(request);
    expect(answer).toMatchObject({ ok: false, refusal: 'provider-failed' });
    expect(answer.ok === false && answer.detail).toMatch(/timed out after 2 tries/);
    expect(fake.received).toHaveLength(2);
  });

  it('refuses a call the daily budget cannot cover before anything reaches the provider', async () => {
    const { fake, store, models, runId, request } = await setup({ dailyBudgetUsd: 0.0001 });
    const answer = await models.gateway.complete(request);
    expect(answer).toMatchObject({ ok: false, refusal: 'budget-exhausted', model: 'small-model' });
    expect(fake.received).toHaveLength(0);
    expect((await store.getRun(runId))!.modelCalls).toBeUndefined();
  });

  it('makes no call for an attempt that is no longer running, was aborted, or a lane that may not use a model', async () => {
    const { fake, store, models, runId, request } = await setup();
    const stopped = new AbortController();
    stopped.abort('cancel');
    expect(await models.gateway.complete({ ...request, signal: stopped.signal })).toMatchObject({ ok: false, refusal: 'aborted' });
    expect(await models.gateway.complete({ ...request, attempt: 2 })).toMatchObject({ ok: false, refusal: 'attempt-not-running' });
    expect(await models.gateway.complete({ ...request, lane: 'security-audit' })).toMatchObject({ ok: false, refusal: 'lane-not-allowed' });
    expect(await models.gateway.complete({ ...request, lane: 'normalize-data' })).toMatchObject({ ok: false, refusal: 'lane-not-allowed' });
    expect(await models.gateway.complete({ ...request, name: 'some-costly-model' })).toMatchObject({ ok: false, refusal: 'no-model' });
    await store.mutateRun(runId, (run) => (run ? { ...run, cancellation: { requestedAt: new Date().toISOString(), requestedBy: 'op', reason: 'stop', completedAt: null, signal: null } } : null));
    expect(await models.gateway.complete(request)).toMatchObject({ ok: false, refusal: 'attempt-not-running' });
    expect(fake.received).toHaveLength(0);
  });

  it('stops retrying once the attempt is aborted mid-backoff', async () => {
    const { fake, models, request } = await setup({ maxRetries: 5 });
    fake.fallback = () => ({ status: 429, headers: { 'retry-after': '5' } });
    const stop = new AbortController();
    setTimeout(() => stop.abort('timeout'), 300);
    const answer = await models.gateway.complete({ ...request, signal: stop.signal });
    expect(answer).toMatchObject({ ok: false, refusal: 'aborted' });
    expect(fake.received).toHaveLength(1);
  });

  it('withholds an answer that carries the provider key or a service secret, and sends no prompt that does', async () => {
    const { fake, store, models, runId, request } = await setup();
    fake.script({ text: `Sure, the key is ${PROVIDER_KEY}` }, { text: 'and the secret: webhook-secret-of-the-service' });
    expect(await models.gateway.complete(request)).toMatchObject({ ok: false, refusal: 'provider-failed', detail: expect.stringContaining('secret') });
    expect(await models.gateway.complete(request)).toMatchObject({ ok: false, refusal: 'provider-failed' });
    expect((await store.getRun(runId))!.modelCalls!.map((c) => c.outcome)).toEqual(['failed', 'failed']);
    // Nor does a prompt carrying one leave for the provider.
    const sent = fake.received.length;
    const leaking = { ...request, messages: [{ role: 'user' as const, content: 'Summarize: webhook-secret-of-the-service' }] };
    expect(await models.gateway.complete(leaking)).toMatchObject({ ok: false, refusal: 'invalid-request', detail: expect.stringContaining('nothing was sent') });
    expect(fake.received).toHaveLength(sent);
  });

  it('answers no-provider when neither a key nor a base URL is configured', async () => {
    const { fake, request } = await setup();
    const s = openStateStore(join(tempDir('models-'), 'state.json'));
    const models = createModels({
      config: { apiKey: null, baseUrl: null, models: { standard: 'small-model' }, prices: {}, dailyBudgetUsd: null, timeoutMs: 1000, maxRetries: 0, allowPrivateBaseUrl: false },
      store: s,
      coordination: new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 }),
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      registry,
      secrets: [],
    });
    expect(models.configured).toBe(false);
    expect(await models.gateway.complete(request)).toMatchObject({ ok: false, refusal: 'no-provider' });
    expect(fake.received).toHaveLength(0);
  });
});
