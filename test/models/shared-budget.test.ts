import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { LlmConfig } from '../../src/config/types.js';
import { RedisCoordination } from '../../src/coordination/redis.js';
import { createModels } from '../../src/models/index.js';
import { openStateStore } from '../../src/store/open.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir } from '../support/config.js';
import { startFakeOpenAi } from '../support/fake-openai.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { admittedRun, insertIfAbsent, markRunning } from '../support/runs.js';

const url = process.env.TEST_REDIS_URL;
const prefix = `orch-test-models-${randomUUID().slice(0, 8)}:`;
const logger = pino({ level: 'silent' });
const registry = agentRegistry([registeredAgent('summarization-agent', ['summarize-content'], { model: { tier: 'standard', provider: null, name: null } })]);

describe.skipIf(!url)('the daily model budget shared by two instances on Redis (needs TEST_REDIS_URL)', () => {
  afterAll(async () => {
    await deleteKeysWithPrefix(url!, prefix);
  });

  it('admits exactly the calls the shared day can cover, whichever instance asks', async () => {
    const fake = await startFakeOpenAi();
    // A call's worst case is (36 prompt tokens + 200 answer tokens at 4 USD/M) = 0.000836 USD, and
    // the fake answers with exactly that usage: one call fits the 0.001 USD day, a second does not.
    fake.fallback = () => ({ text: 'summary', usage: { prompt_tokens: 36, completion_tokens: 200 } });
    const config: LlmConfig = {
      apiKey: 'sk-shared-budget-test-key-000000',
      baseUrl: fake.baseUrl,
      models: { standard: 'small-model' },
      prices: { 'small-model': { inputPerMillionTokensUsd: 1, outputPerMillionTokensUsd: 4 } },
      dailyBudgetUsd: 0.001,
      timeoutMs: 2_000,
      maxRetries: 0,
      // The fake provider listens on loopback.
      allowPrivateBaseUrl: true,
    };
    const instances = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const coordination = await RedisCoordination.connect(url!, logger, { keyPrefix: prefix, connectTimeoutMs: 2_000 });
        const store = openStateStore(join(tempDir(`models-${name}-`), 'state.json'));
        await store.open();
        const runId = `shared-${name}`;
        await store.mutateRun(runId, insertIfAbsent(markRunning(admittedRun({ runId, type: 'summarize-content' }))));
        const models = createModels({ config, store, coordination, clock: systemClock, logger, registry, secrets: [] });
        return { coordination, store, models, runId };
      }),
    );
    try {
      const ask = (i: (typeof instances)[number]) =>
        i.models.gateway.complete({ runId: i.runId, attempt: 1, lane: 'summarize-content', messages: [{ role: 'user', content: 'x'.repeat(60) }], maxTokens: 200 });
      const answers = await Promise.all(instances.map(ask));
      expect(answers.filter((a) => a.ok)).toHaveLength(1);
      expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.refusal)).toEqual(['budget-exhausted']);
      expect(fake.received).toHaveLength(1);
      // Both instances read the same remainder of the shared day.
      const remaining = await Promise.all(instances.map((i) => i.models.budget.remainingUsd()));
      expect(remaining).toEqual([0.000164, 0.000164]);
      expect(await ask(instances[0]!)).toMatchObject({ ok: false, refusal: 'budget-exhausted' });
      expect(fake.received).toHaveLength(1);
    } finally {
      for (const i of instances) {
        await i.store.close();
        await i.coordination.close();
      }
      await fake.close();
    }
  });
});
