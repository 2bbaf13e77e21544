import { existsSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { analyzeDoc } from '../../src/knowledge/analyze-doc.js';
import { extractFacts } from '../../src/knowledge/facts.js';
import { knowledgeIndexPath } from '../../src/knowledge/index-file.js';
import { createKnowledgeService } from '../../src/knowledge/service.js';
import { fixedClock } from '../support/clocks.js';
import { knowledgeFixture, type KnowledgeFixture } from '../support/knowledge-workspace.js';

function serviceFor(fx: KnowledgeFixture, clock = fixedClock('2024-05-01T12:00:00.000Z')) {
  const invalidated: string[][] = [];
  const service = createKnowledgeService({
    config: { docsPath: fx.docsPath, workspaceRoot: fx.workspaceRoot, logsDir: fx.logsDir, knowledgePackDir: fx.knowledgePackDir },
    clock,
    logger: pino({ level: 'silent' }),
    invalidator: { invalidate: async (tags) => void invalidated.push(tags) },
    secrets: ['the-admin-key-value'],
  });
  return { service, invalidated, clock };
}

describe('doc analysis', () => {
  it('extracts title, summary, concepts, links and the files a doc describes', () => {
    const fx = knowledgeFixture();
    const doc = analyzeDoc('README.md', readFileSync(`${fx.docsPath}/README.md`, 'utf8'));
    expect(doc.title).toBe('Orchestrator handbook');
    expect(doc.summary).toMatch(/^The orchestrator admits tasks, queues them and runs them through workers\./);
    expect(doc.concepts).toEqual(expect.arrayContaining(['orchestrator handbook', 'layout']));
    expect(doc.links.map((l) => [l.kind, l.resolved])).toEqual([
      ['doc', 'reference/configuration.md'],
      ['doc', 'guides/deployment.md'],
      ['doc', 'runbooks/rotate-keys.md'],
    ]);
    expect(doc.mentionedFiles).toEqual(['src/app.ts']);
    expect(doc.chunks.map((c) => c.heading)).toEqual(['Orchestrator handbook', 'Layout']);
  });

  it('reads fact statements from tables, code spans, prose and shell samples, fingerprinting secrets', () => {
    const facts = extractFacts(
      [
        '| `port` | `3000` |',
        '`ORCH_RETRY_LIMIT` defaults to `3`.',
        'The service listens on port 3312.',
        'Requires Node 20.19.',
        '```sh',
        'API_TOKEN=sk-live-123456 npm start',
        '```',
      ].join('\n'),
    );
    expect(facts.map((f) => [f.key, f.value])).toEqual([
      ['port', '3000'],
      ['orch_retry_limit', '3'],
      ['service port', '3312'],
      ['node version', '20.19'],
      ['api_token', expect.stringMatching(/^sha256:[0-9a-f]{12}$/)],
    ]);
    expect(JSON.stringify(facts)).not.toContain('sk-live-123456');
  });
});

describe('knowledge service over a fixture docs folder', () => {
  it('gives every caller a refresh that started after its call, sharing one among callers that arrive while another runs', async () => {
    const fx = knowledgeFixture();
    const { service } = serviceFor(fx);
    const first = service.refresh();
    // Written after the first refresh started: the callers below must see it.
    fx.write('added-later.md', '# Added later\n\nWritten while a refresh was running.\n');
    const [second, third] = [service.refresh(), service.refresh()];
    expect(third).toBe(second);
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(b.index.docs.map((d) => d.path)).toContain('added-later.md');
    expect(c.index.generation).toBe(b.index.generation);
    expect(b.index.generation).toBeGreaterThanOrEqual(a.index.generation);
    // Nothing running: the next call starts a refresh of its own.
    const fourth = service.refresh();
    expect(fourth).not.toBe(second);
    expect((await fourth).changed).toBe(false);
  });

  it('builds the index with provenance, concepts and coverage, and persists it', async () => {
    const fx = knowledgeFixture();
    const { service, invalidated } = serviceFor(fx);
    const { index, changed } = await service.refresh();
    expect(changed).toBe(true);
    expect(index.docs.map((d) => d.path)).toEqual([
      'README.md',
      'guides/deployment.md',
      'notes.txt',
      'reference/configuration.md',
      'runbooks/rotate-keys.md',
    ]);
    expect(index.lastRefresh).toMatchObject({ reindexed: 5, reused: 0 });
    expect(existsSync(knowledgeIndexPath(fx.logsDir))).toBe(true);
    expect(invalidated).toEqual([['knowledge']]);

    const summary = await service.summary();
    expect(summary.runtime.index).toMatchObject({ indexedEntries: 5, generation: 1 });
    expect(summary.runtime.index.conceptCount).toBeGreaterThan(5);
    expect(summary.diagnostics.provenance.docs[0]).toMatchObject({
      path: 'README.md',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      modifiedAt: '2024-04-01T00:00:00.000Z',
      indexerVersion: 'knowledge-indexer/1',
    });
    expect(summary.runtime.coverage).toMatchObject({ discoveredFiles: 5, indexedDocs: 5, brokenLinkCount: 0 });
    expect(summary.diagnostics.graphs.provenance.edges).toContainEqual({ from: 'doc:README.md', to: 'doc:guides/deployment.md', relation: 'links-to' });
    expect(await service.knowledgeStats()).toMatchObject({ indexedEntries: 5, conceptCount: summary.runtime.index.conceptCount, contradictionCount: 3, staleDocs: 0 });
  });

  it('finds the planted contradictions across docs and nothing else', async () => {
    const fx = knowledgeFixture();
    const { service } = serviceFor(fx);
    await service.refresh();
    const { diagnostics } = await service.summary();
    const keys = diagnostics.contradictionSignals.map((s) => s.key).sort();
    expect(keys).toEqual(['orch_retry_limit', 'port', 'service port']);
    const port = diagnostics.contradictionSignals.find((s) => s.key === 'port')!;
    expect(port.values.map((v) => [v.value, v.statements.map((s) => s.path)])).toEqual([
      ['3000', ['reference/configuration.md']],
      ['3312', ['guides/deployment.md']],
    ]);
    expect(diagnostics.graphs.contradictions.edges).toContainEqual({
      from: 'doc:reference/configuration.md',
      to: 'doc:guides/deployment.md',
      relation: 'contradicts',
      detail: 'port',
    });
  });

  it('re-indexes only changed files and keeps the index across a restart', async () => {
    const fx = knowledgeFixture();
    await serviceFor(fx).service.refresh();
    fx.write('notes.txt', 'Release notes, now longer.\n');
    const restarted = serviceFor(fx, fixedClock('2024-05-01T13:00:00.000Z'));
    expect((await restarted.service.load())?.docs).toHaveLength(5);
    const { index, changes } = await restarted.service.refresh();
    expect(changes).toEqual({ added: [], modified: ['notes.txt'], removed: [] });
    expect(index.lastRefresh).toMatchObject({ reindexed: 1, reused: 4 });
    expect(index.generation).toBe(2);
    const again = await restarted.service.refresh();
    expect(again.changed).toBe(false);
    expect(again.index.lastRefresh).toMatchObject({ reindexed: 0, reused: 5 });
  });

  it('changes freshness after an edit: a described source file newer than its doc makes it stale, editing the doc freshens it', async () => {
    const fx = knowledgeFixture();
    const { service } = serviceFor(fx, fixedClock('2024-09-01T00:00:00.000Z'));
    await service.refresh();
    const before = await service.summary();
    const readme = before.diagnostics.freshness.docs.find((d) => d.path === 'README.md')!;
    // Five months old, the files it describes older still: aging, not stale.
    expect(readme).toMatchObject({ status: 'aging', describedFileCount: 1, newerDescribedFiles: [] });

    fx.touch('src/app.ts', Date.parse('2024-08-01T00:00:00Z') / 1000, 'workspace');
    await service.refresh();
    const stale = (await service.summary()).diagnostics.freshness.docs.find((d) => d.path === 'README.md')!;
    expect(stale.status).toBe('stale');
    expect(stale.newerDescribedFiles).toEqual([{ path: 'src/app.ts', lagMs: Date.parse('2024-08-01T00:00:00Z') - Date.parse('2024-04-01T00:00:00Z') }]);

    fx.write('README.md', `${readFileSync(`${fx.docsPath}/README.md`, 'utf8')}\nUpdated for the new app wiring.\n`);
    fx.touch('README.md', Date.parse('2024-08-31T00:00:00Z') / 1000);
    await service.refresh();
    const edited = (await service.summary()).diagnostics.freshness.docs.find((d) => d.path === 'README.md')!;
    expect(edited).toMatchObject({ status: 'fresh', ageDays: 1, newerDescribedFiles: [] });
  });

  it('ranks query results by relevance with query-scoped meta', async () => {
    const fx = knowledgeFixture();
    const { service } = serviceFor(fx);
    await service.refresh();
    const rotate = await service.query({ query: 'rotate keys' });
    expect(rotate.results[0]).toMatchObject({ path: 'runbooks/rotate-keys.md', title: 'Rotate API keys' });
    expect(rotate.results[0]!.snippet.toLowerCase()).toContain('rotat');
    expect(rotate.results[0]!.score).toBeGreaterThan(rotate.results[1]?.score ?? 0);

    const deploy = await service.query({ query: 'systemd deployment rollback' });
    expect(deploy.results.map((r) => r.path)[0]).toBe('guides/deployment.md');
    // The deployment guide takes part in the port contradiction: the query meta carries it.
    expect(deploy.meta.contradictionSignals.map((s) => s.key)).toContain('port');
    expect(deploy.meta.provenance.docs.map((d) => d.path)).toEqual(deploy.results.map((r) => r.path).sort());

    const scoped = await service.query({ query: 'service', filter: { paths: ['guides'] } });
    expect(scoped.results.every((r) => r.path.startsWith('guides/'))).toBe(true);
    expect((await service.query({ query: 'zyzzyva-nothing' })).results).toEqual([]);
  });

  it('exports every doc with its content and without configured secrets', async () => {
    const fx = knowledgeFixture();
    fx.write('runbooks/leak.md', '# Leak\n\nNever paste the-admin-key-value into a doc.\n');
    const { service } = serviceFor(fx);
    await service.refresh();
    const exported = await service.exportDocs();
    expect(exported.docCount).toBe(6);
    const leak = exported.docs.find((d) => d.path === 'runbooks/leak.md')!;
    expect(leak.content).toBe('# Leak\n\nNever paste [redacted] into a doc.\n');
    expect(JSON.stringify(exported)).not.toContain('the-admin-key-value');
  });
});
