import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startup } from '../../../src/lanes/startup/handler.js';
import { applyOutcome, freshState, handlerInput } from '../../support/handlers.js';
import { handlerConfig } from '../../support/config.js';

describe('startup handler', () => {
  it('counts the docs, records their paths and stamps lastStartedAt', async () => {
    const config = handlerConfig();
    mkdirSync(join(config.docsPath, 'guides'), { recursive: true });
    writeFileSync(join(config.docsPath, 'README.md'), '# Hello');
    writeFileSync(join(config.docsPath, 'guides', 'setup.txt'), 'steps');
    writeFileSync(join(config.docsPath, 'logo.png'), 'not a doc');

    const outcome = await startup(freshState(), config, handlerInput('startup'));
    expect(outcome).toMatchObject({ status: 'completed', result: { configLoaded: true, docsIndexed: 2, stateInitialized: true } });
    const state = applyOutcome(freshState(), outcome);
    expect(state.lastStartedAt).toBe('2024-05-01T12:00:00.000Z');
    expect(state.docsIndexed).toEqual(['README.md', 'guides/setup.txt']);
  });

  it('starts with zero docs and a note when the docs folder is absent', async () => {
    const outcome = await startup(freshState(), handlerConfig(), handlerInput('startup'));
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toMatchObject({ docsIndexed: 0, note: expect.stringContaining('does not exist') });
  });

  it('defers the index to a queued doc-sync on fast start', async () => {
    const outcome = await startup(freshState(), handlerConfig({ fastStart: true }), handlerInput('startup'));
    expect(outcome.result).toMatchObject({ configLoaded: true, indexDeferred: true });
    expect(outcome.followUps).toEqual([{ type: 'doc-sync', payload: {} }]);
    expect(applyOutcome(freshState(), outcome).lastStartedAt).toBe('2024-05-01T12:00:00.000Z');
  });
});
