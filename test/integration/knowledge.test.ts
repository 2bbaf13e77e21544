import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeFixture, type KnowledgeFixture } from '../support/knowledge-workspace.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { AGENTS_DIR } from '../support/paths.js';

describe('knowledge routes and the doc-change repair loop through the real service', () => {
  let fx: KnowledgeFixture;
  let running: RuntimeService;

  beforeAll(async () => {
    fx = knowledgeFixture();
    // A configured secret pasted into a doc must never leave through the export.
    fx.write('runbooks/leak.md', `# Leak\n\nThe webhook secret is ${TEST_WEBHOOK_SECRET}.\n\n\`signingValue\` is \`${TEST_WEBHOOK_SECRET}\`.\n`);
    fx.write('runbooks/signing.md', '# Signing\n\n`signingValue` is `rotated-elsewhere`.\n');
    running = await startRuntimeService({ agentsDir: AGENTS_DIR, docWatcher: true }, fx.base);
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('serves the public summary without a key, cached, with the planted contradiction', async () => {
    const first = await running.api.get('/api/knowledge/summary', null);
    expect(first.status).toBe(200);
    expect(first.body.runtime.index).toMatchObject({ indexedEntries: 7 });
    const keys = first.body.diagnostics.contradictionSignals.map((s: { key: string }) => s.key);
    expect(keys).toEqual(expect.arrayContaining(['port', 'signingvalue']));
    // The contradiction quoting a configured secret is public, the secret is not.
    expect(JSON.stringify(first.body)).toContain('[redacted]');
    expect(JSON.stringify(first.body)).not.toContain(TEST_WEBHOOK_SECRET);
    expect(first.headers.get('cache-control')).toMatch(/public/);
    const second = await running.api.get('/api/knowledge/summary', null);
    expect(second.headers.get('x-svc-cache')).toBe('hit');
    expect(JSON.stringify(first.body)).not.toContain(fx.base);
    // /health advertises the summary URL, and it answers.
    const health = await running.api.get('/health', null);
    expect((await fetch(health.body.urls.knowledgeSummary)).status).toBe(200);
  });

  it('answers queries for operators only, ranked, with repair-loop posture', async () => {
    expect((await running.api.post('/api/knowledge/query', { query: 'rotate keys' }, null)).status).toBe(401);
    expect((await running.api.post('/api/knowledge/query', { query: 'rotate keys' }, TEST_KEYS.viewer)).status).toBe(403);
    expect((await running.api.post('/api/knowledge/query', { query: '' })).status).toBe(400);
    const res = await running.api.post('/api/knowledge/query', { query: 'rotate keys', limit: 3 });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ path: 'runbooks/rotate-keys.md', snippet: expect.any(String), score: expect.any(Number) });
    expect(res.body.meta.repairLoop).toMatchObject({ threshold: 25 });
    expect(res.body.runtime.repairLoop).toMatchObject({ threshold: 25 });
    const leak = await running.api.post('/api/knowledge/query', { query: 'webhook secret' });
    expect(leak.body.results.map((r: { path: string }) => r.path)).toContain('runbooks/leak.md');
    expect(JSON.stringify(leak.body)).not.toContain(TEST_WEBHOOK_SECRET);
  });

  it('exports for admins only, without configured secrets', async () => {
    expect((await running.api.get('/api/knowledge/export', TEST_KEYS.operator)).status).toBe(403);
    const res = await running.api.get('/api/knowledge/export', TEST_KEYS.admin);
    expect(res.status).toBe(200);
    expect(res.body.docs.find((d: { path: string }) => d.path === 'runbooks/rotate-keys.md').content).toContain('Rotate API keys');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(TEST_WEBHOOK_SECRET);
    for (const key of Object.values(TEST_KEYS)) expect(text).not.toContain(key);
  });

  it('turns 25 changed docs into exactly one verified drift repair with a knowledge pack', async () => {
    for (let i = 0; i < 25; i += 1) writeFileSync(join(fx.docsPath, 'guides', `topic-${i}.md`), `# Topic ${i}\n\nHow topic ${i} works.\n`);
    const repair = await waitFor(
      async () => {
        const res = await running.api.get('/api/tasks/runs?type=drift-repair');
        const run = res.body.items?.find((r: { status: string }) => r.status === 'success' || r.status === 'failed');
        return run ?? undefined;
      },
      60_000,
      'a finished drift-repair run',
    );
    const run = await waitFor(async () => {
      const res = await running.api.run(repair.runId);
      return res.body.repair?.status === 'verified' ? res.body : undefined;
    }, 15_000, 'the verified repair on the run');
    expect(run.repair).toMatchObject({ classification: 'doc-drift', verificationMode: 'pack-hash-and-source-hashes' });
    expect(run.workflow.repairStatus).toBe('verified');
    expect(run.result.knowledgePackRegenerated).toBe(true);
    expect(run.payload.paths).toHaveLength(25);

    const latest = JSON.parse(readFileSync(join(fx.knowledgePackDir, 'latest.json'), 'utf8'));
    expect(latest.docs.map((d: { path: string }) => d.path)).toContain('docs/guides/topic-24.md');
    expect(existsSync(join(fx.knowledgePackDir, `knowledge-pack-v${latest.version}.json`))).toBe(true);

    const runs = await running.api.get('/api/tasks/runs?type=drift-repair');
    expect(runs.body.items).toHaveLength(1);
    const docChanges = await running.api.get('/api/tasks/runs?type=doc-change&includeInternal=true');
    expect(docChanges.body.total).toBeGreaterThanOrEqual(1);
    expect(docChanges.body.total).toBeLessThanOrEqual(25);
    const summary = await running.api.get('/api/knowledge/summary', null);
    expect(summary.body.runtime.index.indexedEntries).toBe(32);
    expect(summary.body.runtime.repairLoop.lastRepair).toMatchObject({ repairId: repair.runId, status: 'verified' });
  });

  it('keeps the index across a restart: nothing is re-indexed', async () => {
    await running.service.kill();
    running = await startRuntimeService({ agentsDir: AGENTS_DIR }, fx.base);
    const res = await running.api.get('/api/knowledge/summary', null);
    expect(res.body.runtime.index).toMatchObject({ indexedEntries: 32, lastRefresh: { reindexed: 0, reused: 32 } });
  });

  it('runs an operator-triggered drift-repair through the doc-specialist worker', async () => {
    const trigger = await running.api.trigger('drift-repair', { requestedBy: 'ops', paths: ['README.md'], idempotencyKey: 'manual-repair' });
    expect(trigger.status).toBe(202);
    const run = await waitForTerminal(running.api, 'manual-repair', 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({ filesAudited: 1, verification: { verified: true } });
    const detail = await waitFor(async () => {
      const res = await running.api.run('manual-repair');
      return res.body.repair ? res.body : undefined;
    });
    expect(detail.repair).toMatchObject({ classification: 'operator-requested', status: 'verified' });
  });
});
