import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { shellManifest, startOperatorService, writeOperatorType, type OperatorService } from '../support/operator-types.js';

const FIELD = 'field() { sed -e "s/.*\\"$1\\":\\"\\([^\\"]*\\)\\".*/\\1/" "$ORCH_PAYLOAD_FILE"; }';
/** Two programs side by side; the manifest's command picks one (the files are read when a run starts, the manifest when it is admitted). */
const PROGRAMS = Object.fromEntries(['one', 'two'].map((word) => [`${word}.sh`, { text: `${FIELD}\nsleep "$(field wait)"\necho '{"version":"${word}"}'` }]));
const versioned = (word: string) => shellManifest('versioned', { payloadSchema: waitSchema, concurrency: 1, command: ['sh', `${word}.sh`] });
const waitSchema = { type: 'object', properties: { wait: { type: 'string', pattern: '^[0-9.]+$' } }, required: ['wait'] };

/** POST /api/task-types/reload re-reads the folder on this instance, without a restart. */
describe('reloading the operator task types folder', () => {
  let svc: OperatorService;
  const reload = () => svc.api.post('/api/task-types/reload', {}, TEST_KEYS.admin);

  beforeAll(async () => {
    svc = await startOperatorService((dir) => {
      writeOperatorType(dir, 'versioned', versioned('one'), PROGRAMS);
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('is for admins only', async () => {
    expect((await svc.api.post('/api/task-types/reload', {}, TEST_KEYS.operator)).status).toBe(403);
  });

  it('adds a new type, triggerable at once and in the catalog and OpenAPI', async () => {
    expect((await svc.api.trigger('late', {})).body.error.message).toBe("unknown task type 'late'");
    writeOperatorType(svc.typesDir, 'late', shellManifest('late', { payloadSchema: { type: 'object', properties: { note: { type: 'string' } } } }), {
      'run.sh': { text: 'echo \'{"late":true}\'' },
    });
    const res = await reload();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ added: ['late'], changed: [], removed: [], unchanged: ['versioned'], refused: [] });
    const catalog = await svc.api.get('/api/tasks/catalog');
    expect((catalog.body.tasks as Array<{ type: string; source: string }>).find((t) => t.type === 'late')?.source).toBe('operator');
    const doc = await svc.api.get('/api/openapi.json', null);
    expect(doc.body.components.schemas['TaskPayload.late'].properties).toHaveProperty('note');
    expect(await svc.runToEnd('late')).toMatchObject({ status: 'success', result: { late: true } });
  });

  it('a changed manifest applies to runs admitted after it; a run admitted before keeps its own', async () => {
    const first = await svc.api.trigger('versioned', { wait: '4' });
    await waitFor(async () => ((await svc.api.run(first.body.runId as string)).body.status === 'running' ? true : undefined), 10_000, 'the first run to start');
    // The manifest's concurrency 1 keeps this one queued behind the first.
    const queued = await svc.api.trigger('versioned', { wait: '0' });
    expect((await svc.api.run(queued.body.runId as string)).body.status).toBe('pending');
    writeOperatorType(svc.typesDir, 'versioned', versioned('two'));
    expect((await reload()).body).toMatchObject({ changed: ['versioned'] });
    expect((await waitForTerminal(svc.api, queued.body.runId as string, 20_000)).result).toEqual({ success: true, version: 'one' });
    expect(await svc.runToEnd('versioned', { wait: '0' })).toMatchObject({ result: { version: 'two' } });
  });

  it('refuses a broken folder, naming its file and field, and keeps the rest', async () => {
    writeOperatorType(svc.typesDir, 'broken', shellManifest('broken', { retryable: 'yes' }));
    const res = await reload();
    expect(res.body.refused).toEqual([{ folder: 'broken', message: expect.stringMatching(/broken\/task-type\.json: \/retryable/) }]);
    expect(res.body.unchanged).toEqual(['late', 'versioned']);
    rmSync(join(svc.typesDir, 'broken'), { recursive: true });
  });

  it('a broken edit of a known type keeps its previous manifest', async () => {
    writeFileSync(join(svc.typesDir, 'late', 'task-type.json'), '{"type": "late", ');
    const res = await reload();
    expect(res.body.refused).toEqual([{ folder: 'late', message: expect.stringContaining('late/task-type.json') }]);
    expect(res.body.removed).toEqual([]);
    expect(await svc.runToEnd('late')).toMatchObject({ status: 'success' });
  });

  it('a removed type is no longer listed or triggerable', async () => {
    rmSync(join(svc.typesDir, 'late'), { recursive: true });
    expect((await reload()).body).toMatchObject({ removed: ['late'] });
    const catalog = await svc.api.get('/api/tasks/catalog');
    expect((catalog.body.tasks as Array<{ type: string }>).map((t) => t.type)).not.toContain('late');
    const refused = await svc.api.trigger('late', {});
    expect([refused.status, refused.body.error.code]).toEqual([400, 'task_type_internal']);
  });
});
