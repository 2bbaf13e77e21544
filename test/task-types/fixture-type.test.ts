import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultViewOf } from '../../console/src/runs/result-kinds.js';
import { createTaskTypeRegistry } from '../../src/task-types/registry.js';
import { installTaskTypes } from '../../src/task-types/installed.js';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { echoNoteType } from '../fixtures/task-types/echo-note/definition.js';
import { echoNoteLane } from '../fixtures/task-types/echo-note/lane.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { TEST_KEYS } from '../support/keys.js';

/**
 * A task type added by one folder alone (test/fixtures/task-types/echo-note: its module and its
 * handler) is known everywhere a built-in type is: the catalog, OpenAPI, admission, a run with a
 * typed result, and the console's view of that result.
 */
describe('a task type added by its folder alone', () => {
  let svc: ComposedService;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_KEYS.operator}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const finished = async (runId: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const run = (await call('GET', `/api/tasks/runs/${encodeURIComponent(runId)}`)).body;
      if (run.status === 'success' || run.status === 'failed') return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    svc = await startComposedService({ runtime: true, extraTaskTypes: { types: [echoNoteType], lanes: [echoNoteLane] } });
  });
  afterAll(async () => {
    await svc?.close();
    // Later tests in this worker read the built-in catalog.
    installTaskTypes(createTaskTypeRegistry(BUILT_IN_REGISTRY.all()));
  });

  it('is listed in the catalog with its payload schema, result schema and result view', async () => {
    const catalog = await call('GET', '/api/tasks/catalog');
    const entry = (catalog.body.tasks as Array<Record<string, any>>).find((t) => t.type === 'echo-note');
    expect(entry).toMatchObject({ label: 'Echo note', executor: 'handler', publicTriggerable: true, source: 'builtin' });
    expect(entry?.resultSchema.properties).toHaveProperty('markdown');
    expect(entry?.resultView).toEqual(echoNoteType.resultView);
  });

  it('has its payload and result schemas in OpenAPI', async () => {
    const doc = await call('GET', '/api/openapi.json');
    expect(doc.body.components.schemas['TaskPayload.echo-note'].properties).toHaveProperty('note');
    expect(doc.body.components.schemas['TaskResult.echo-note'].required).toEqual(['markdown', 'words']);
  });

  it('is admitted by its payload schema: a bad payload is 400 naming the field', async () => {
    const res = await call('POST', '/api/tasks/trigger', { type: 'echo-note', payload: { note: '' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/body/payload/note' })]));
  });

  it('runs with a typed result, which the console shows through the type view', async () => {
    const res = await call('POST', '/api/tasks/trigger', { type: 'echo-note', payload: { note: 'Ship on Friday' } });
    expect(res.status).toBe(202);
    const run = await finished(res.body.runId as string);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({ result: { markdown: '# Ship on Friday', words: 3 } });
    const catalog = await call('GET', '/api/tasks/catalog');
    const view = (catalog.body.tasks as Array<Record<string, any>>).find((t) => t.type === 'echo-note')?.resultView;
    expect(resultViewOf(view, run.result)).toEqual({ kind: 'text', text: { title: null, markdown: '# Ship on Friday', facts: [{ label: 'words', value: '3' }] } });
  });

  it('ends a malformed result invalid_result, naming the fields, and stores none of it', async () => {
    const res = await call('POST', '/api/tasks/trigger', { type: 'echo-note', payload: { note: 'Ship', shape: 'wrong' } });
    const run = await finished(res.body.runId as string);
    expect(run).toMatchObject({ status: 'failed', failureReason: 'invalid_result', result: null });
    expect(run.error).toContain('/result/markdown');
    expect(run.error).toContain('/result/words');
  });
});
