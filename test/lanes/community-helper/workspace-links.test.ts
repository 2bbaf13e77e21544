import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docStates, docWarning } from '../../../agents/community-helper/freshness.js';
import type { KnowledgePack } from '../../../agents/community-helper/knowledge-pack.js';
import { outsideFixture, POSIX, type OutsideFixture } from '../../support/outside-files.js';

/** community-response looks at the cited docs in the docs folder: a doc that is a link is not looked at. */
describe.skipIf(!POSIX)('community-response doc freshness and links', () => {
  let fx: OutsideFixture;
  const pack = (paths: string[]): KnowledgePack => ({
    version: 3,
    generatedAt: new Date(Date.now() + 60_000).toISOString(),
    indexerVersion: 'test',
    packHash: 'h',
    docs: paths.map((path) => ({ path, hash: '', title: path, summary: '', concepts: [] })),
  });

  beforeAll(() => {
    fx = outsideFixture('freshness-links');
    const outside = fx.writeOutside('notes.md', '# Outside\n');
    fx.write('docs/guide.md', '# Guide\n');
    fx.symlink('docs/linked.md', outside);
    fx.hardLink('docs/hard.md', outside);
    fx.symlink('docs/section', fx.outside);
  });
  afterAll(() => fx.cleanup());

  it('states a linked, hard-linked or linked-folder doc as not followed, and never looks outside the docs folder', async () => {
    const states = await docStates(pack(['guide.md', 'linked.md', 'hard.md', 'section/notes.md', 'gone.md', '../outside/notes.md']), join(fx.workspace, 'docs'));
    expect(states).toEqual({ 'guide.md': 'current', 'linked.md': 'not-followed', 'hard.md': 'not-followed', 'section/notes.md': 'not-followed', 'gone.md': 'missing' });
    expect(docWarning('linked.md', states['linked.md'], pack([]))).toContain('not looked at');
  });
});
