import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driftRepair, type DriftRepairSuccess } from '../../../agents/doc-specialist/drift-repair.js';
import { packHashOf, readLatestPack, readPack, verifyPack } from '../../../src/knowledge/pack.js';
import { knowledgeFixture } from '../../support/knowledge-workspace.js';

function setup() {
  const fx = knowledgeFixture();
  const payload = (paths?: string[]) => ({
    requestedBy: 'test',
    ...(paths ? { paths } : {}),
    __knowledge: { docsPath: fx.docsPath, knowledgePackDir: fx.knowledgePackDir, logsDir: fx.logsDir },
  });
  const context = { workspaceRoot: fx.workspaceRoot, runId: 'run-drift-1' };
  return { fx, payload, context };
}

describe('drift-repair lane (doc-specialist)', () => {
  it('writes knowledge pack v1 in the shared format, verified against the sources', async () => {
    const { fx, payload, context } = setup();
    const result = (await driftRepair(payload(), context, new Date('2024-05-01T12:00:00Z'))) as DriftRepairSuccess;
    expect(result).toMatchObject({
      success: true,
      driftDetected: true,
      knowledgePackRegenerated: true,
      knowledgePack: { version: 1, docCount: 5 },
      verification: { verified: true, mode: 'pack-hash-and-source-hashes', checkedDocs: 5, problems: [] },
      specialistContract: { role: 'doc-specialist', status: 'completed' },
    });
    // Without named paths every doc the (absent) previous pack lacks is audited as added.
    expect(result.audit.map((a) => [a.path, a.status])).toEqual([
      ['README.md', 'added'],
      ['guides/deployment.md', 'added'],
      ['notes.txt', 'added'],
      ['reference/configuration.md', 'added'],
      ['runbooks/rotate-keys.md', 'added'],
    ]);

    const pack = JSON.parse(readFileSync(join(fx.knowledgePackDir, 'knowledge-pack-v1.json'), 'utf8'));
    expect(pack).toMatchObject({ version: 1, generatedAt: '2024-05-01T12:00:00.000Z', indexerVersion: 'knowledge-indexer/1' });
    expect(pack.packHash).toBe(createHash('sha256').update(JSON.stringify(pack.docs)).digest('hex'));
    const readme = pack.docs.find((d: { path: string }) => d.path === 'docs/README.md');
    expect(readme).toMatchObject({
      title: 'Orchestrator handbook',
      hash: createHash('sha256').update(readFileSync(join(fx.docsPath, 'README.md'))).digest('hex'),
      summary: expect.stringContaining('admits tasks'),
      concepts: expect.arrayContaining(['layout']),
      content: readFileSync(join(fx.docsPath, 'README.md'), 'utf8'),
    });
    expect(await readLatestPack(fx.knowledgePackDir)).toEqual(pack);
  });

  it('audits the named drifted paths against the previous pack and writes the next version', async () => {
    const { fx, payload, context } = setup();
    await driftRepair(payload(), context);
    fx.write('guides/deployment.md', '# Deployment guide\n\nNow on Kubernetes, see [missing](nowhere.md).\n');
    fx.write('guides/new.md', '# New guide\n');
    const result = (await driftRepair(payload(['guides/deployment.md', 'guides/new.md', 'notes.txt', 'gone.md']), context)) as DriftRepairSuccess;
    expect(result.knowledgePack.version).toBe(2);
    expect(result.driftDetected).toBe(true);
    expect(result.audit.map((a) => [a.path, a.status])).toEqual([
      ['gone.md', 'missing'],
      ['guides/deployment.md', 'modified'],
      ['guides/new.md', 'added'],
      ['notes.txt', 'unchanged'],
    ]);
    expect(result.audit.find((a) => a.path === 'guides/deployment.md')!.brokenLinks).toEqual(['nowhere.md']);
    expect(result.agentAuditResult.drifted).toEqual(['gone.md', 'guides/deployment.md', 'guides/new.md']);
    expect(result.recommendedNextActions.join(' ')).toMatch(/broken doc links/);

    // Unchanged docs still get a fresh, verified pack.
    const third = (await driftRepair(payload(), context)) as DriftRepairSuccess;
    expect(third).toMatchObject({ success: true, driftDetected: false, filesAudited: 0, knowledgePack: { version: 3 } });
  });

  it('detects a tampered pack in verification', async () => {
    const { fx, payload, context } = setup();
    const result = (await driftRepair(payload(), context)) as DriftRepairSuccess;
    expect(result.knowledgePack.path).toBe('logs/knowledge-packs/knowledge-pack-v1.json');
    const path = join(fx.knowledgePackDir, basename(result.knowledgePack.path));
    const pack = (await readPack(path))!;
    pack.docs[0]!.title = 'tampered';
    writeFileSync(path, JSON.stringify(pack));
    const check = await verifyPack({ ...result.knowledgePack, path, latestPath: join(fx.knowledgePackDir, 'latest.json') }, async () => null);
    expect(check.verified).toBe(false);
    expect(check.problems).toContain('packHash does not match the docs array');
    expect(packHashOf(pack.docs)).not.toBe(pack.packHash);
  });

  it('refuses without the service-provided folders or with paths escaping the docs folder', async () => {
    const { payload, context } = setup();
    expect(await driftRepair({ paths: ['a.md'] }, context)).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
    expect(await driftRepair(payload(['../secrets.md']), context)).toMatchObject({ success: false, error: expect.stringContaining('../secrets.md') });
  });
});
