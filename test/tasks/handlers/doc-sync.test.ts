import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docSync } from '../../../src/lanes/doc-sync/handler.js';
import { outlineDoc } from '../../../src/knowledge/doc-outline.js';
import { applyOutcome, freshState, handlerInput, knowledgeContext, shownFile } from '../../support/handlers.js';
import { fixedClock } from '../../support/clocks.js';
import { handlerConfig } from '../../support/config.js';

interface SyncResult {
  filesIndexed: number;
  changeDetected: boolean;
  knowledgePackGenerated: boolean;
  knowledgePackPath?: string;
  knowledgePackVersion?: number;
  added: number;
  modified: number;
  removed: number;
}

function setupDocs() {
  const config = handlerConfig();
  mkdirSync(join(config.docsPath, 'ops'), { recursive: true });
  writeFileSync(join(config.docsPath, 'README.md'), '# Orchestrator\n\nIntro text here.\n\n## Install\n\nRun it.\n');
  writeFileSync(join(config.docsPath, 'ops', 'runbook.md'), '# Runbook\n\n```sh\n# not a heading\n```\n\n## Restart\n');
  writeFileSync(join(config.docsPath, 'notes.txt'), 'plain notes');
  return config;
}

describe('doc-sync handler', () => {
  it('indexes docs, writes a knowledge pack, then detects no change on a second run', async () => {
    const config = setupDocs();
    const clock = fixedClock('2024-05-01T12:00:00.000Z');

    const first = await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync', {}, { clock }));
    const r1 = first.result as SyncResult;
    expect(first.status).toBe('completed');
    expect(r1).toMatchObject({ filesIndexed: 3, changeDetected: true, knowledgePackGenerated: true, added: 3 });
    
    expect(r1.knowledgePackPath).toBe('logs/knowledge-packs/knowledge-pack-v1.json');
    const pack = JSON.parse(readFileSync(shownFile(config, r1.knowledgePackPath!), 'utf8'));
    expect(pack).toMatchObject({ version: 1, generatedAt: '2024-05-01T12:00:00.000Z', indexerVersion: 'knowledge-indexer/1', docCount: 3 });
    expect(pack.packHash).toMatch(/^[0-9a-f]{64}$/);
    const readme = pack.docs.find((d: { docPath: string }) => d.docPath === 'README.md');
    expect(readme).toMatchObject({ path: 'docs/README.md', title: 'Orchestrator', headings: ['Orchestrator', 'Install'], hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const runbook = pack.docs.find((d: { docPath: string }) => d.docPath === 'ops/runbook.md');
    expect(runbook.headings).toEqual(['Runbook', 'Restart']);
    expect(JSON.parse(readFileSync(join(config.knowledgePackDir, 'latest.json'), 'utf8'))).toEqual(pack);
    expect(existsSync(join(config.logsDir, 'knowledge', 'index.json'))).toBe(true);
    expect(applyOutcome(freshState(), first).docsIndexed).toEqual(['README.md', 'notes.txt', 'ops/runbook.md']);

    clock.set('2024-05-01T13:00:00.000Z');
    const second = await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync', {}, { clock }));
    expect(second.result).toMatchObject({ filesIndexed: 3, changeDetected: false, knowledgePackGenerated: false });
    expect((second.result as SyncResult).knowledgePackPath).toBeUndefined();

    // With the doc list already in state, an unchanged sync asks for no state write at all.
    const indexed = applyOutcome(freshState(), first);
    const third = await docSync(indexed, knowledgeContext(config), handlerInput('doc-sync', {}, { clock }));
    expect(third.stateUpdate).toBeUndefined();
  });

  it('detects modified, added and removed docs and writes a new pack', async () => {
    const config = setupDocs();
    const clock = fixedClock('2024-05-01T12:00:00.000Z');
    await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync', {}, { clock }));

    writeFileSync(join(config.docsPath, 'README.md'), '# Orchestrator v2\n');
    writeFileSync(join(config.docsPath, 'new.md'), '# New');
    rmSync(join(config.docsPath, 'notes.txt'));
    clock.set('2024-05-01T12:05:00.000Z');
    const outcome = await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync', {}, { clock }));
    const result = outcome.result as SyncResult;
    expect(result).toMatchObject({ changeDetected: true, knowledgePackGenerated: true, knowledgePackVersion: 2, added: 1, modified: 1, removed: 1 });
    const pack = JSON.parse(readFileSync(shownFile(config, result.knowledgePackPath!), 'utf8'));
    expect(pack.docs.map((d: { docPath: string }) => d.docPath)).toEqual(['README.md', 'new.md', 'ops/runbook.md']);
    expect(pack.docs[0].title).toBe('Orchestrator v2');
  });

  it('regenerates a deleted latest pack even when the docs did not change', async () => {
    const config = setupDocs();
    await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync'));
    rmSync(join(config.knowledgePackDir, 'latest.json'));
    const again = await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync', {}, { clock: fixedClock('2024-05-02T00:00:00Z') }));
    expect(again.result).toMatchObject({ changeDetected: true, knowledgePackGenerated: true, knowledgePackVersion: 2 });
    expect(existsSync(shownFile(config, (again.result as SyncResult).knowledgePackPath!))).toBe(true);
  });

  it('does not follow symbolic links out of the docs folder', async () => {
    const config = setupDocs();
    const outside = join(config.baseDir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'private.md'), '# Private');
    symlinkSync(outside, join(config.docsPath, 'linked'));
    const outcome = await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync'));
    expect(applyOutcome(freshState(), outcome).docsIndexed).not.toContain('linked/private.md');
  });

  it('does not index a hard-linked doc, and says so in the result', async () => {
    const config = setupDocs();
    const outside = join(config.baseDir, 'outside-private.md');
    writeFileSync(outside, '# Private\n\nOUTSIDE-doc-sync-content\n');
    linkSync(outside, join(config.docsPath, 'ops', 'private.md'));
    const outcome = await docSync(freshState(), knowledgeContext(config), handlerInput('doc-sync'));
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toMatchObject({
      filesIndexed: 3,
      skipped: [{ path: 'ops/private.md', reason: 'hard link (2 links): its content may live outside the workspace' }],
    });
    expect(applyOutcome(freshState(), outcome).docsIndexed).not.toContain('ops/private.md');
    expect(JSON.stringify(outcome.result)).not.toContain('OUTSIDE-doc-sync-content');
  });

  it('completes with zero files and a note when docsPath is missing', async () => {
    const outcome = await docSync(freshState(), knowledgeContext(handlerConfig()), handlerInput('doc-sync'));
    expect(outcome).toMatchObject({
      status: 'completed',
      result: { filesIndexed: 0, changeDetected: false, knowledgePackGenerated: false, note: expect.stringContaining('does not exist') },
    });
  });
});

describe('outlineDoc', () => {
  it('falls back from a level-1 heading to the first heading, first line and file name', () => {
    expect(outlineDoc('a.md', '## Sub\n# Main').title).toBe('Main');
    expect(outlineDoc('a.md', '## Sub only').title).toBe('Sub only');
    expect(outlineDoc('a.txt', '\n  first line\nsecond').title).toBe('first line');
    expect(outlineDoc('dir/empty.md', '')).toEqual({ title: 'empty.md', headings: [], wordCount: 0 });
    expect(outlineDoc('a.md', '# C# tips\none two three').headings).toEqual(['C# tips']);
  });
});
