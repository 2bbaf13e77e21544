import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { summarizeContent } from '../../../agents/summarization-agent/summarize.js';
import { loadAgentRegistry, type AgentRegistry } from '../../../src/agents/registry.js';
import { packageRoot } from '../../../src/config/package-root.js';
import { createWorkerSpawner } from '../../../src/workers/spawn-worker.js';
import { testConfig } from '../../support/config.js';
import { captureLogger } from '../../support/captured-logger.js';
import { OUTAGE_REVIEW } from '../../support/summarize-texts.js';

const COMPILED_ENTRYPOINT = join(packageRoot(), 'dist', 'agents', 'summarization-agent', 'index.js');

/** The real summarize-content lane, run the way the service runs it: compiled, through the spawner. */
describe('summarization-agent worker (compiled)', () => {
  let registry: AgentRegistry;

  beforeAll(() => {
    // This test exercises the build output on purpose; a missing build is a failure, not a skip.
    if (!existsSync(COMPILED_ENTRYPOINT)) {
      throw new Error(`${COMPILED_ENTRYPOINT} is missing: run the build first (npm run build, or npx tsc -p tsconfig.build.json)`);
    }
    registry = loadAgentRegistry(join(packageRoot(), 'agents'));
  });

  it('resolves to the compiled entrypoint', () => {
    expect(registry.get('summarization-agent')?.entrypointPath).toBe(COMPILED_ENTRYPOINT);
  });

  it('summarizes through the worker protocol exactly as the lane function does', async () => {
    const { logger } = captureLogger();
    const spawner = createWorkerSpawner({ config: testConfig(), registry, logger });
    const payload = { sourceType: 'incident review', content: OUTAGE_REVIEW, format: 'executive_summary' } as const;
    const outcome = await spawner.run({ agentId: 'summarization-agent', runId: 'summarize-e2e', taskType: 'summarize-content', payload });

    expect(outcome).toMatchObject({ ok: true, failure: null, exitCode: 0 });
    // Spawned without a model channel, the worker takes the deterministic path and says why.
    expect(outcome.result).toEqual({
      ...summarizeContent(payload),
      generation: { path: 'deterministic', reason: 'no-provider: no model channel was given to this attempt' },
    });
    expect(outcome.result!.summary).toMatch(/^This incident review concerns payment gateway and certificate: /);
  });

  it('answers content shorter than a summary with the text itself', async () => {
    const { logger } = captureLogger();
    const spawner = createWorkerSpawner({ config: testConfig(), registry, logger });
    const payload = { content: 'Text to summarize. It has two sentences.', format: 'bullets' };
    const outcome = await spawner.run({ agentId: 'summarization-agent', runId: 'summarize-short', taskType: 'summarize-content', payload });

    expect(outcome).toMatchObject({ ok: true, failure: null, exitCode: 0 });
    expect(outcome.result).toMatchObject({
      bullets: ['Text to summarize.', 'It has two sentences.'],
      note: 'content is shorter than a summary; returned as written',
    });
  });

  it('reports a payload its schema refuses as a logical failure with the schema check admission applies', async () => {
    const { logger, lines } = captureLogger();
    const spawner = createWorkerSpawner({ config: testConfig(), registry, logger });
    const outcome = await spawner.run({
      agentId: 'summarization-agent',
      runId: 'summarize-refusal',
      taskType: 'summarize-content',
      payload: { content: '' },
    });

    expect(outcome).toMatchObject({ ok: false, failure: 'logical-failure', exitCode: 0, error: 'payload refused: /content must not have fewer than 1 characters' });
    expect(outcome.result).toMatchObject({
      taskType: 'summarize-content',
      problems: [{ path: '/content', message: 'must not have fewer than 1 characters' }],
      specialistContract: { status: 'refused' },
    });
    expect(lines.some((l) => l.msg === 'agent spawn error' && l.agentId === 'summarization-agent')).toBe(true);
  });
});
