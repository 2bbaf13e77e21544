import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { docChangeBufferPath, drainDocChanges } from '../../../src/knowledge/doc-change-buffer.js';
import { docChange, normalizeDocPath } from '../../../src/lanes/doc-change/handler.js';
import { freshState, handlerInput, knowledgeContext } from '../../support/handlers.js';
import { handlerConfig } from '../../support/config.js';

describe('doc-change handler', () => {
  it('buffers changed paths without duplicates and reports the 25-path threshold', async () => {
    const config = handlerConfig();
    const first = await docChange(freshState(), knowledgeContext(config), handlerInput('doc-change', { paths: ['a.md', 'b.md', 'a.md'] }));
    expect(first.result).toMatchObject({ bufferedPaths: 2, thresholdReached: false, pendingPaths: ['a.md', 'b.md'] });

    const many = Array.from({ length: 23 }, (_, i) => `guides/${i}.md`);
    const second = await docChange(freshState(), knowledgeContext(config), handlerInput('doc-change', { paths: ['b.md', ...many] }));
    expect(second.result).toMatchObject({ bufferedPaths: 25, thresholdReached: true, threshold: 25 });
    expect(JSON.parse(readFileSync(docChangeBufferPath(config), 'utf8')).pending).toHaveLength(25);

    const drained = await drainDocChanges(config, ['a.md', 'b.md'], new Date());
    expect(drained.pending).toHaveLength(23);
  });

  it('keeps concurrent updates from losing each other', async () => {
    const config = handlerConfig();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => docChange(freshState(), knowledgeContext(config), handlerInput('doc-change', { paths: [`p${i}.md`] }))),
    );
    expect(JSON.parse(readFileSync(docChangeBufferPath(config), 'utf8')).pending).toHaveLength(10);
  });

  it('rejects paths that climb out of the docs folder or are absolute', async () => {
    const outcome = await docChange(freshState(), knowledgeContext(handlerConfig()), handlerInput('doc-change', { paths: ['../x.md', '/etc/passwd', './ok.md'] }));
    expect(outcome.result).toMatchObject({ bufferedPaths: 1, pendingPaths: ['ok.md'], rejectedPaths: ['../x.md', '/etc/passwd'] });
    expect(normalizeDocPath('a\\b.md')).toBe('a/b.md');
  });

  it('fails with a reason when paths is not a string array', async () => {
    const outcome = await docChange(freshState(), knowledgeContext(handlerConfig()), handlerInput('doc-change', { paths: 'a.md' }));
    expect(outcome).toEqual({ status: 'error', error: expect.stringContaining('paths') });
  });
});
