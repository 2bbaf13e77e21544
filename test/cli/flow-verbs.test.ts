import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { installTaskTypes } from '../../src/task-types/installed.js';
import { createTaskTypeRegistry } from '../../src/task-types/registry.js';
import { echoNoteType } from '../fixtures/task-types/echo-note/definition.js';
import { echoNoteLane } from '../fixtures/task-types/echo-note/lane.js';
import { orch } from '../support/cli.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

const note = (key: string, dependsOn: string[] = [], payload: Record<string, unknown> = {}) => ({ key, type: 'echo-note', payload: { note: `note ${key}`, ...payload }, dependsOn });

/** `orch flow` against the composed service with its runner. */
describe('orch flow', () => {
  let svc: ComposedService;
  let env: NodeJS.ProcessEnv;
  const dir = tempDir('orch-flow-cli-');
  const file = (name: string, body: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(body));
    return path;
  };

  beforeAll(async () => {
    svc = await startComposedService({ runtime: true, extraTaskTypes: { types: [echoNoteType], lanes: [echoNoteLane] } });
    env = { ORCH_URL: svc.url, ORCH_API_KEY: TEST_KEYS.operator };
  });
  afterAll(async () => {
    await svc?.close();
    installTaskTypes(createTaskTypeRegistry(BUILT_IN_REGISTRY.all()));
  });

  it('runs a flow file and watches it to success (exit 0); show prints every step', async () => {
    const path = file('ok.json', { id: 'cli-ok', steps: [note('a'), note('b', ['a']), note('c', ['a']), note('d', ['b', 'c'])] });
    const watched = await orch(['flow', 'run', path, '--watch'], env);
    expect(watched.stderr).toBe('');
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain('queued  flow cli-ok  4 steps');
    expect(watched.stdout).toMatch(/flow cli-ok {2}success/);
    const shown = await orch(['flow', 'show', 'cli-ok'], env);
    expect(shown.code).toBe(0);
    for (const key of ['a', 'b', 'c', 'd']) expect(shown.stdout).toMatch(new RegExp(`^${key} +success`, 'm'));
  });

  it('exits 1 when the flow fails, and reruns it from a step', async () => {
    const path = file('bad.json', { id: 'cli-bad', steps: [note('a'), note('b', ['a'], { shape: 'wrong' })] });
    const watched = await orch(['flow', 'run', path, '--watch'], env);
    expect(watched.code).toBe(1);
    expect(watched.stdout).toMatch(/flow cli-bad {2}failed/);
    const rerun = await orch(['flow', 'rerun', 'cli-bad', '--from', 'b', '--json'], env);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ status: 'queued', rerunOf: 'cli-bad', runIds: ['flow:cli-bad:a', expect.stringMatching(/:b$/)] });
  });

  it('exits 130 when the watched flow is cancelled; cancel prints the flow', async () => {
    const path = file('held.json', { id: 'cli-held', steps: [note('gate', [], { requiresApproval: true }), note('after', ['gate'])] });
    const watching = orch(['flow', 'run', path, '--watch'], env);
    const api = apiClient(svc.url);
    await waitFor(async () => ((await api.get('/api/flows/cli-held')).status === 200 ? true : undefined), 10_000, 'the flow');
    const cancelled = await orch(['flow', 'cancel', 'cli-held', 'not', 'today'], env);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/^status +cancelled/m);
    expect((await watching).code).toBe(130);
  });

  it('refuses an unknown action and a file that is not JSON (exit 2)', async () => {
    expect((await orch(['flow', 'runn', 'x'], env)).stderr).toContain("unknown flow action 'runn'");
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'nope');
    const res = await orch(['flow', 'run', notJson], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is not valid JSON');
  });
});
