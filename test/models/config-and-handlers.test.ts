import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { CompletionRequest, ModelGateway } from '../../src/models/types.js';
import { serviceSecrets } from '../../src/redaction/service-secrets.js';
import { openStateStore } from '../../src/store/open.js';
import { getCatalogEntry } from '../../src/runtime/catalog.js';
import { executeRun, type ExecutorDeps } from '../../src/runtime/executor.js';
import { bindHandler } from '../../src/runtime/handler-types.js';
import { handlerConfig, tempDir, testConfig, writeConfigFile } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';
import { admittedRun } from '../support/runs.js';

describe('llm configuration', () => {
  it('reads the key and base URL from the environment and the rest from the llm block', () => {
    const dir = tempDir('llm-config-');
    const file = writeConfigFile(dir, {
      llm: {
        models: { standard: 'small-model' },
        prices: { 'small-model': { inputPerMillionTokensUsd: 0.5, outputPerMillionTokensUsd: 1.5 } },
        dailyBudgetUsd: 3,
        timeoutMs: 5000,
        maxRetries: 4,
        allowPrivateBaseUrl: true,
      },
    });
    const config = testConfig({ ORCHESTRATOR_CONFIG: file, OPENAI_API_KEY: 'sk-config-test-key-123456', OPENAI_BASE_URL: 'https://provider.example/v1' }, dir);
    expect(config.llm).toEqual({
      apiKey: 'sk-config-test-key-123456',
      baseUrl: 'https://provider.example/v1',
      models: { standard: 'small-model' },
      prices: { 'small-model': { inputPerMillionTokensUsd: 0.5, outputPerMillionTokensUsd: 1.5 } },
      dailyBudgetUsd: 3,
      timeoutMs: 5000,
      maxRetries: 4,
      allowPrivateBaseUrl: true,
    });
    // The key is a service secret: run logs replace it wherever a worker prints it.
    expect(serviceSecrets(config)).toContain('sk-config-test-key-123456');
    expect(handlerConfig().llm).toMatchObject({ apiKey: null, baseUrl: null, models: {}, dailyBudgetUsd: null, timeoutMs: 30_000, maxRetries: 2, allowPrivateBaseUrl: false });
  });

  it('refuses a malformed llm block at start-up', () => {
    const dir = tempDir('llm-config-');
    const file = writeConfigFile(dir, { llm: { prices: { m: { inputPerMillionTokensUsd: -1, outputPerMillionTokensUsd: 1 } }, maxRetries: 50 } });
    expect(() => testConfig({ ORCHESTRATOR_CONFIG: file }, dir)).toThrow(/llm/);
  });
});

describe('in-process handlers reach the same gateway', () => {
  it('binds the run, attempt, lane and signal to every request a handler makes', async () => {
    const seen: CompletionRequest[] = [];
    const gateway: ModelGateway = {
      complete: async (request) => {
        seen.push(request);
        return { ok: false, refusal: 'lane-not-allowed', detail: 'doc-sync runs locally', model: null };
      },
    };
    const store = openStateStore(join(tempDir('handler-model-'), 'state.json'));
    await store.open();
    const deps: ExecutorDeps = {
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      lanes: testLaneRegistry([
        {
          type: 'doc-sync',
          handler: bindHandler(async (_state, _ctx, input) => {
            const answer = await input.complete!({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 });
            return { status: 'completed', result: { answer } };
          }, {}),
        },
      ]),
      spawner: { run: async () => Promise.reject(new Error('no workers here')) },
      ownerId: 'owner-1',
      modelGateway: gateway,
    };
    const signal = new AbortController().signal;
    const outcome = await executeRun(deps, getCatalogEntry('doc-sync')!, admittedRun({ runId: 'h-model', type: 'doc-sync' }), signal);
    await store.close();
    expect(outcome.result).toMatchObject({ result: { answer: { ok: false, refusal: 'lane-not-allowed' } } });
    expect(seen).toEqual([{ messages: [{ role: 'user', content: 'hi' }], maxTokens: 10, runId: 'h-model', attempt: 1, lane: 'doc-sync', signal }]);
  });
});
