import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { orch } from '../support/cli.js';
import { waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { RAISED_RATE_LIMITS, startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

describe('orch against a real service', () => {
  let svc: RuntimeService;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // operator-write allows three requests per 2 s: the fourth trigger in a row meets a 429.
    svc = await startRuntimeService({ laneTimeoutsMs: { 'summarize-content': 60_000 }, rateLimits: { ...RAISED_RATE_LIMITS, 'operator-write': { max: 3, windowSeconds: 2 } } });
    env = { ORCH_URL: svc.service.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-cli-config-') };
  });

  afterAll(async () => {
    await svc?.service.kill();
  });

  it('run --watch follows a run to success: exit 0, its events, then its summary', async () => {
    const result = await orch(['run', 'summarize-content', 'content=Watch me finish.', '--key', 'cli-watch-ok', '--watch'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('queued  cli-watch-ok  summarize-content');
    expect(lines.some((l) => / success\s+succeeded$/.test(l))).toBe(true);
    expect(lines).toContain('fixture completed');
    expect(lines.some((l) => l.startsWith('cli-watch-ok  success  summarize-content'))).toBe(true);
  });

  it('watch of a run that fails exits 1 and says why', async () => {
    await svc.api.trigger('summarize-content', { content: 'no', mode: 'logical-failure', idempotencyKey: 'cli-watch-fail' });
    const result = await orch(['watch', 'cli-watch-fail'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('cli-watch-fail  failed  summarize-content');
    expect(result.stdout).toContain('fixture refused');
  });

  it('watch of a cancelled run exits 130', async () => {
    await svc.api.trigger('summarize-content', { content: 'slow', sleepMs: 20_000, idempotencyKey: 'cli-watch-cancel' });
    const watching = orch(['watch', 'cli-watch-cancel', '--json'], env);
    await waitFor(async () => ((await svc.api.run('cli-watch-cancel')).body.status === 'running' ? true : undefined));
    const cancel = await orch(['cancel', 'cli-watch-cancel', 'changed', 'my', 'mind'], env);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toBe('cli-watch-cancel  cancelling\n');
    const result = await watching;
    expect(result.code).toBe(130);
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { name: string; status: string });
    expect(events.at(-1)?.status).toBe('cancelled');
  });

  it('approve decides a held run, which then runs', async () => {
    const held = await svc.api.trigger('summarize-content', { content: 'needs a yes', requiresApproval: true, idempotencyKey: 'cli-held' });
    const listed = await orch(['approvals'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(held.body.taskId);
    const approved = await orch(['approve', held.body.taskId, 'looks', 'right'], env);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^approved  ${held.body.taskId}  replay run (\\S+)\\n$`));
    const replayRunId = /replay run (\S+)/.exec(approved.stdout)![1]!;
    const watched = await orch(['watch', replayRunId], env);
    expect(watched.code).toBe(0);
  });

  it('waits out a 429 instead of failing', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await orch(['run', 'summarize-content', `content=burst ${i}`], env));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    expect(results.some((r) => /^rate limited: waiting \d+\.\d s$/m.test(r.stderr))).toBe(true);
  });

  it('prints --json for scripts and tables without colour when not a terminal', async () => {
    const json = await orch(['runs', '--limit', '2', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ items: expect.any(Array), total: expect.any(Number) });
    const table = await orch(['runs', '--limit', '2'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^RUN\s+TYPE\s+STATUS\s+CREATED\s+TOOK\s+SUMMARY$/);
    expect(table.stdout).not.toContain('\u001b[');
  });

  it('reports a refusal with its code and request id, exit 1', async () => {
    const result = await orch(['show', 'no-such-run'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^orch: not_found: .+ \(request [\w-]+\)\n$/);
  });

  it('login writes a 0600 file it then uses, refuses it once others may read it, and logout removes it', async () => {
    const config = tempDir('orch-login-');
    const loginEnv = { XDG_CONFIG_HOME: config };
    const login = await orch(['login', '--url', svc.service.url, '--api-key', TEST_KEYS.viewer], loginEnv);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('as viewer-bot (viewer)');
    const file = join(config, 'orch', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, 'orch')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: svc.service.url, apiKey: TEST_KEYS.viewer });
    expect(login.stdout).not.toContain(TEST_KEYS.viewer);
    expect((await orch(['health'], loginEnv)).code).toBe(0);
    const viewerRun = await orch(['run', 'summarize-content', 'content=x'], loginEnv);
    expect(viewerRun.code).toBe(1);
    expect(viewerRun.stderr).toMatch(/^orch: forbidden: /);
    chmodSync(file, 0o644);
    const refused = await orch(['runs'], loginEnv);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`orch: ${file} is readable by others (mode 644); run 'chmod 600 ${file}' or 'orch login' again\n`);
    const wrongKey = await orch(['login', '--url', svc.service.url, '--api-key', 'not-a-key'], { XDG_CONFIG_HOME: tempDir('orch-login-bad-') });
    expect(wrongKey.code).toBe(1);
    expect((await orch(['logout'], loginEnv)).stdout).toBe(`removed ${file}\n`);
  });
});
