import { describe, expect, it } from 'vitest';
import { driftRepair, type DriftRepairSuccess } from '../../../agents/doc-specialist/drift-repair.js';
import { knowledgeFixture } from '../../support/knowledge-workspace.js';

describe('drift-repair result paths', () => {
  it('names the knowledge pack it wrote under logs/, never by the server path', async () => {
    const fx = knowledgeFixture();
    const result = (await driftRepair(
      { __knowledge: { docsPath: fx.docsPath, knowledgePackDir: fx.knowledgePackDir, logsDir: fx.logsDir } },
      { workspaceRoot: fx.workspaceRoot, runId: 'run-1' },
    )) as DriftRepairSuccess;
    expect(result).toMatchObject({
      success: true,
      knowledgePackPath: 'logs/knowledge-packs/knowledge-pack-v1.json',
      knowledgePack: { path: 'logs/knowledge-packs/knowledge-pack-v1.json', latestPath: 'logs/knowledge-packs/latest.json' },
    });
    for (const root of [fx.workspaceRoot, fx.logsDir, fx.docsPath]) expect(JSON.stringify(result)).not.toContain(root);
  });
});
