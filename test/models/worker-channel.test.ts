import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgentRegistry } from '../../src/agents/registry.js';
import { systemClock } from '../../src/clock.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { createModels } from '../../src/models/index.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { getCatalogEntry } from '../../src/runtime/catalog.js';
import { executeRun, type ExecutorDeps } from '../../src/runtime/executor.js';
import { createWorkerSpawner } from '../../src/workers/spawn-worker.js';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { testLaneRegistry } from '../support/lanes.js';
import { FIXTURES_DIR } from '../support/paths.js';
import { admittedRun, insertIfAbsent, markRunning } from '../support/runs.js';

const PROVIDER_KEY = 'sk-worker-channel-test-key-abcdef012345';
const registry = loadAgentRegistry(join(FIXTURES_DIR, 'model-agents'));
const logger = pino({ level: 'silent' });

let fake: FakeOpenAi | null = null;
let store: StateStore | null = null;
let savedKey: string | undefined;
afterEach(async () => {
  await fake?.close();
  await store?.close();
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
});

describe('the per-attempt model channel of a spawned worker', () => {
  it('gives the worker a token, never the key; its call is made and metered for its own run and lane; the token dies with the attempt', async () => {
    // The service's own environment holds the key, as it would in production.
    savedKey = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = PROVIDER_KEY;
    fake = await startFakeOpenAi();
    fake.script({ text: 'Hello from the provider.', usage: { prompt_tokens: 12, completion_tokens: 5 } });
    const base = tempDir('model-channel-');
    // The fake provider listens on loopback, which the operator allows on purpose.
    const file = writeConfigFile(base, { llm: { allowPrivateBaseUrl: true } });
    const config = testConfig({ ORCHESTRATOR_CONFIG: file, OPENAI_API_KEY: PROVIDER_KEY, OPENAI_BASE_URL: fake.baseUrl }, base);
    expect(config.llm.apiKey).toBe(PROVIDER_KEY);
    store = openStateStore(join(base, 'state.json'));
    await store.open();
    const models = createModels({
      config: { ...config.llm, models: { standard: 'small-model' } },
      store,
      coordination: new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 }),
      clock: systemClock,
      logger,
      registry,
      secrets: [],
    });
    const run = markRunning(admittedRun({ runId: 'channel-run', type: 'fixture-model-env' }));
    await store.mutateRun(run.runId, insertIfAbsent(run));
    const deps: ExecutorDeps = {
      store,
      clock: systemClock,
      logger,
      lanes: testLaneRegistry(),
      spawner: createWorkerSpawner({ config, registry, logger }),
      ownerId: 'owner-1',
      modelChannel: models.channel,
    };
    const entry = { ...getCatalogEntry('summarize-content')!, type: 'fixture-model-env', agentId: 'fixture-model-env', toolGatePreflight: false };
    try {
      const outcome = await executeRun(deps, entry, run, new AbortController().signal);

      expect(outcome.ok).toBe(true);
      const result = outcome.result as { env: Record<string, string>; payloadText: string; channel: { endpoint: string; token: string }; answer: unknown };
      // Nothing the worker holds carries the key: not its environment, not its payload file.
      expect(JSON.stringify(result.env)).not.toContain(PROVIDER_KEY);
      expect(Object.keys(result.env).filter((k) => /OPENAI|API_KEY/.test(k))).toEqual([]);
      expect(result.payloadText).not.toContain(PROVIDER_KEY);
      expect(JSON.stringify(outcome.result)).not.toContain(PROVIDER_KEY);
      expect(result.channel.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/complete$/);
      expect(result.channel.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      // The service made the call with the key, for the grant's run and lane, whatever the worker claimed.
      expect(result.answer).toMatchObject({ ok: true, text: 'Hello from the provider.', model: 'small-model' });
      expect(fake.received).toHaveLength(1);
      expect(fake.received[0]!.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
      expect((await store.getRun('channel-run'))!.modelCalls).toEqual([
        expect.objectContaining({ lane: 'fixture-model-env', attempt: 1, model: 'small-model', inputTokens: 12, outputTokens: 5 }),
      ]);

      // The attempt is over: its token is revoked.
      expect(models.channel.grants()).toBe(0);
      const late = await fetch(result.channel.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${result.channel.token}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'again' }], maxTokens: 10 }),
      });
      expect(late.status).toBe(401);
      expect(fake.received).toHaveLength(1);
    } finally {
      await models.channel.close();
    }
  });

  it('bounds the model calls of an attempt to a share of its worker timeout, and stops a call in flight when the attempt ends', async () => {
    fake = await startFakeOpenAi();
    fake.fallback = () => ({ text: 'too slow', delayMs: 3_000 });
    const base = tempDir('model-channel-');
    store = openStateStore(join(base, 'state.json'));
    await store.open();
    const models = createModels({
      config: { apiKey: PROVIDER_KEY, baseUrl: fake.baseUrl, models: { standard: 'small-model' }, prices: {}, dailyBudgetUsd: null, timeoutMs: 10_000, maxRetries: 3, allowPrivateBaseUrl: true },
      store,
      coordination: new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 }),
      clock: systemClock,
      logger,
      registry,
      secrets: [],
      // A 1 s worker timeout leaves its model calls 600 ms.
      attemptTimeoutMs: () => 1_000,
    });
    const ask = async (runId: string, close?: (opened: { close(): void }) => void) => {
      const run = markRunning(admittedRun({ runId, type: 'fixture-model-env' }));
      await store!.mutateRun(runId, insertIfAbsent(run));
      const opened = await models.channel.open(run, new AbortController().signal);
      const { endpoint, token } = opened.input.__model as { endpoint: string; token: string };
      if (close) setTimeout(() => close(opened), 200);
      const started = Date.now();
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 }),
      });
      return { answer: (await response.json()) as Record<string, unknown>, elapsed: Date.now() - started };
    };
    try {
      // A request out of shape is refused by the channel and never reaches the gateway.
      const run = markRunning(admittedRun({ runId: 'bad-request-run', type: 'fixture-model-env' }));
      const opened = await models.channel.open(run, new AbortController().signal);
      const { endpoint, token } = opened.input.__model as { endpoint: string; token: string };
      const bad = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ messages: [], maxTokens: 99_999 }) });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toMatch(/\/messages.*|\/maxTokens/);
      opened.close();
      expect(fake.received).toHaveLength(0);

      const timed = await ask('deadline-run');
      expect(timed.answer).toMatchObject({ ok: false, refusal: 'aborted' });
      expect(timed.elapsed).toBeLessThan(2_000);
      const ended = await ask('ended-run', (opened) => opened.close());
      expect(ended.answer).toMatchObject({ ok: false, refusal: 'aborted' });
      expect(ended.elapsed).toBeLessThan(1_000);
      // One request each, none retried after the stop.
      expect(fake.received).toHaveLength(2);
    } finally {
      await models.channel.close();
    }
  });

  it('tells a lane that may not use a model why, and opens no endpoint for it', async () => {
    fake = await startFakeOpenAi();
    const base = tempDir('model-channel-');
    store = openStateStore(join(base, 'state.json'));
    const models = createModels({
      config: { apiKey: null, baseUrl: null, models: {}, prices: {}, dailyBudgetUsd: null, timeoutMs: 1000, maxRetries: 0, allowPrivateBaseUrl: false },
      store,
      coordination: new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 }),
      clock: systemClock,
      logger,
      registry,
      secrets: [],
    });
    const opened = await models.channel.open(markRunning(admittedRun({ runId: 'r', type: 'fixture-model-env' })), new AbortController().signal);
    expect(opened.input).toEqual({ __model: { endpoint: null, reason: 'no-provider', detail: expect.stringContaining('OPENAI_API_KEY') } });
    expect(models.channel.grants()).toBe(0);
  });
});
