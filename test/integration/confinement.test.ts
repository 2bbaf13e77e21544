import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/**
 * The service side of the workspace's one door, as an attacker who can put files in the
 * workspace would try it: each configured folder (docs, deployments, knowledge packs) and the
 * business registry replaced by a link to a folder or file outside, holding a marker. Each case
 * is refused with a reason; the outside stays unchanged and its marker reaches no response.
 */
const MARKER = 'OUTSIDE-MARKER-5d1e9a';

describe('configured folders and files that are links', () => {
  let running: RuntimeService | null = null;
  afterEach(async () => {
    await running?.service.kill();
    running = null;
  });

  /** A service whose workspace is the attacker's; `outside` is a folder of the host beside it. */
  async function start(prepare: (workspace: string, outside: string) => void) {
    const base = tempDir('confine-');
    const workspace = join(base, 'workspace');
    const outside = join(base, 'outside');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(outside, { recursive: true });
    prepare(workspace, outside);
    running = await startRuntimeService({ logLevel: 'warn' }, base);
    return { base, workspace, outside, api: running.api, url: running.service.url };
  }

  async function get(url: string, path: string, key: string = TEST_KEYS.admin): Promise<string> {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return res.text();
  }

  it('does not index, pack or export a docs folder that is a link', async () => {
    const { api, url, outside } = await start((workspace, outsideDir) => {
      writeFileSync(join(outsideDir, 'secret-notes.md'), `# Notes\n\n${MARKER} lives here.\n`);
      symlinkSync(outsideDir, join(workspace, 'docs'));
    });
    const triggered = await api.trigger('doc-sync', { idempotencyKey: 'linked-docs' });
    const run = await waitForTerminal(api, triggered.body.runId as string, 30_000);
    expect(run.status).toBe('failed');
    expect(String(run.error)).toMatch(/docs folder .* is a symbolic link/);
    for (const path of ['/api/knowledge/summary', '/api/knowledge/export', `/api/tasks/runs/${encodeURIComponent(run.runId)}`, '/api/persistence/export']) {
      expect(await get(url, path)).not.toContain(MARKER);
    }
    const query = await fetch(`${url}/api/knowledge/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEYS.operator}`, 'content-type': 'application/json' },
      // A word of the outside doc: a snippet of it would carry the marker.
      body: JSON.stringify({ query: 'lives here notes' }),
    });
    expect(await query.text()).not.toContain(MARKER);
    expect(readdirSync(outside)).toEqual(['secret-notes.md']);
  }, 60_000);

  it('writes no deployment through a deployments folder that is a link', async () => {
    const { api, outside } = await start((workspace, outsideDir) => {
      symlinkSync(outsideDir, join(workspace, 'deployments'));
    });
    const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'linked-deploy' });
    const decision = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'approved' });
    expect(decision.status).toBe(200);
    const replay = await waitForTerminal(api, decision.body.replayRunId as string, 30_000);
    expect(replay.status).toBe('failed');
    expect(String(replay.error)).toMatch(/deployments folder .* is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  }, 60_000);

  it('writes no knowledge pack into a knowledge packs folder that is a link', async () => {
    const { api, outside } = await start((workspace, outsideDir) => {
      mkdirSync(join(workspace, 'docs'));
      writeFileSync(join(workspace, 'docs', 'runbook.md'), '# Runbook\n\nRestart with care.\n');
      // The default packs folder is <logsDir>/knowledge-packs, beside the workspace: make it a link.
      const logs = join(workspace, '..', 'logs');
      mkdirSync(logs, { recursive: true });
      symlinkSync(outsideDir, join(logs, 'knowledge-packs'));
    });
    const triggered = await api.trigger('doc-sync', { idempotencyKey: 'linked-packs' });
    const run = await waitForTerminal(api, triggered.body.runId as string, 30_000);
    expect(run.status).toBe('failed');
    expect(String(run.error)).toMatch(/knowledge packs folder .* is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  }, 60_000);

  it('reports a business registry that is a link as refused, quoting none of the file it points to', async () => {
    const { url, outside } = await start((workspace, outsideDir) => {
      writeFileSync(join(outsideDir, 'passwd'), `${MARKER}:x:0:0:root:/root:/bin/sh\n`);
      mkdirSync(join(workspace, 'business'));
      symlinkSync(join(outsideDir, 'passwd'), join(workspace, 'business', 'registry.json'));
    });
    const overview = await get(url, '/api/business/overview', TEST_KEYS.viewer);
    expect(overview).not.toContain(MARKER);
    expect(overview).toContain('symbolic link');
    expect(readFileSync(join(outside, 'passwd'), 'utf8')).toContain(MARKER);
  }, 60_000);

  it('answers 400 for a scope with a name or a path over the file system limits, never 500', async () => {
    const { api } = await start(() => undefined);
    const longName = await api.trigger('security-audit', { type: 'scan', scope: `projects/${'a'.repeat(300)}` });
    expect(longName.status).toBe(400);
    expect(longName.body.error.code).toBe('invalid_request');
    expect(longName.body.error.details[0].path).toBe('/body/payload/scope');
    // 128 characters, 256 bytes: the limit counts bytes.
    const wideName = await api.trigger('code-index', { scope: `src/${'é'.repeat(128)}` });
    expect(wideName.status).toBe(400);
    expect(wideName.body.error.message).toMatch(/longer than the file system allows/);
    expect(existsSync(join(running!.base, 'workspace', 'projects'))).toBe(false);
  }, 60_000);
});
