import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsToFill, payloadTemplate, type PayloadSchema } from '../../console/src/lib/trigger-body.js';
import { resultFacts } from '../../src/task-types/result-view.js';
import { orch } from '../support/cli.js';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startOperatorService, type OperatorService } from '../support/operator-types.js';
import { REPO_ROOT } from '../support/paths.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'task-types');

/**
 * The examples of docs/task-types.md ("Write your own task type"), copied as written into a
 * workspace's task-types folder, triggered through the API and through `orch run`, each with its
 * typed result.
 */
describe('the example operator task types', () => {
  let svc: OperatorService;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    svc = await startOperatorService((typesDir, workspace) => {
      for (const example of ['word-stats', 'folder-inventory']) cpSync(join(EXAMPLES, example), join(typesDir, example), { recursive: true });
      mkdirSync(join(workspace, 'notes'), { recursive: true });
      writeFileSync(join(workspace, 'notes', 'plan.md'), 'Release plan\nShip the release on Friday.\nThe release notes come first.\n');
      mkdirSync(join(workspace, 'project', 'src'), { recursive: true });
      writeFileSync(join(workspace, 'project', 'README.md'), 'hello\n');
      writeFileSync(join(workspace, 'project', 'src', 'main.js'), 'console.log("a longer file");\n');
    });
    cliEnv = { ORCH_URL: svc.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-cli-config-') };
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('both are in the catalog as operator types, with the console facts their view names', async () => {
    const catalog = await svc.api.get('/api/tasks/catalog');
    const ours = (catalog.body.tasks as Array<Record<string, any>>).filter((t) => t.source === 'operator').map((t) => t.type);
    expect(ours.sort()).toEqual(['folder-inventory', 'word-stats']);
  });

  it('the console\'s trigger form starts from their payload schema, leaving the workspace path to fill in', async () => {
    const tasks = (await svc.api.get('/api/tasks/catalog')).body.tasks as Array<{ type: string; payloadSchema: PayloadSchema }>;
    const schema = tasks.find((t) => t.type === 'word-stats')!.payloadSchema;
    expect(fieldsToFill(schema)).toEqual(['path']);
    expect(JSON.parse(payloadTemplate(schema))).toEqual({ path: '', top: 5 });
  });

  it('word-stats (Python) through the API', async () => {
    const run = await svc.runToEnd('word-stats', { path: 'notes/plan.md', top: 2 });
    expect(run.status).toBe('success');
    expect(run.result).toEqual({ success: true, path: 'notes/plan.md', lines: 3, words: 12, topWords: [{ word: 'release', count: 3 }, { word: 'plan', count: 1 }] });
    const view = (await svc.api.get('/api/tasks/catalog')).body.tasks.find((t: { type: string }) => t.type === 'word-stats').resultView;
    expect(resultFacts(view, run.result).metrics).toEqual([
      { label: 'lines', value: '3' },
      { label: 'words', value: '12' },
      { label: 'most frequent', value: 'release' },
    ]);
  });

  it('word-stats refuses a path outside the workspace at admission', async () => {
    const res = await svc.api.trigger('word-stats', { path: '../etc/passwd' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('scope_outside_workspace');
  });

  it('folder-inventory (shell) through the API', async () => {
    const run = await svc.runToEnd('folder-inventory', { folder: 'project' });
    expect(run.result).toEqual({ success: true, folder: 'project', files: 2, bytes: 36, largest: 'project/src/main.js' });
    const missing = await svc.runToEnd('folder-inventory', { folder: 'nothing-here' });
    expect(missing).toMatchObject({ status: 'failed', error: 'nothing-here is not a folder of the workspace' });
  });

  it('both through `orch run <type> key=value`', async () => {
    const words = await orch(['run', 'word-stats', 'path=notes/plan.md', 'top=1', '--key', 'cli-word-stats'], cliEnv);
    expect(words.stderr).toBe('');
    expect(words.code).toBe(0);
    expect(words.stdout).toContain('cli-word-stats');
    expect((await waitForTerminal(svc.api, 'cli-word-stats')).result).toMatchObject({ words: 12, topWords: [{ word: 'release', count: 3 }] });
    const stock = await orch(['run', 'folder-inventory', 'folder=project', '--key', 'cli-inventory', '--watch'], cliEnv);
    expect(stock.code).toBe(0);
    expect((await svc.api.run('cli-inventory')).body).toMatchObject({ status: 'success', result: { files: 2, bytes: 36 } });
  });
});
