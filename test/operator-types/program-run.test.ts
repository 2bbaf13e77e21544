import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { shellManifest, startOperatorService, writeOperatorType, type OperatorService } from '../support/operator-types.js';

/**
 * An operator type added by its folder alone runs its program through the worker protocol: the
 * payload as a file, the result as JSON, stderr in the run's log, the result schema checked.
 */
describe('an operator task type', () => {
  let svc: OperatorService;

  beforeAll(async () => {
    svc = await startOperatorService((dir) => {
      writeOperatorType(
        dir,
        'shout',
        shellManifest('shout', {
          label: 'Shout',
          payloadSchema: { type: 'object', properties: { word: { type: 'string', minLength: 1 } }, required: ['word'], additionalProperties: false },
          resultSchema: { type: 'object', properties: { shouted: { type: 'string' }, payloadFile: { type: 'string' } }, required: ['shouted'], additionalProperties: false },
        }),
        {
          'run.sh': {
            text: [
              'word=$(sed -e \'s/.*"word":"\\([^"]*\\)".*/\\1/\' "$1")',
              'echo "shouting $word" >&2',
              'echo "not the result"',
              'printf \'{"shouted":"%s","payloadFile":"%s"}\\n\' "$(echo "$word" | tr a-z A-Z)" "$([ "$1" = "$ORCH_PAYLOAD_FILE" ] && echo same)"',
            ].join('\n'),
          },
        },
      );
      writeOperatorType(dir, 'wrong-shape', shellManifest('wrong-shape', { resultSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } }), {
        'run.sh': { text: 'echo \'{"count":"three"}\'' },
      });
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('is listed in the catalog as source operator with its schemas', async () => {
    const catalog = await svc.api.get('/api/tasks/catalog');
    const entry = (catalog.body.tasks as Array<Record<string, any>>).find((t) => t.type === 'shout');
    expect(entry).toMatchObject({ label: 'Shout', executor: 'worker', source: 'operator', publicTriggerable: true });
    expect(entry?.payloadSchema.properties).toHaveProperty('word');
  });

  it('refuses a payload its schema refuses, in the usual error shape, but accepts the service fields', async () => {
    const bad = await svc.api.trigger('shout', { word: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/body/payload/word' })]));
    const extra = await svc.api.trigger('shout', { word: 'x', colour: 'red' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details).toEqual([expect.objectContaining({ path: '/body/payload/colour', message: 'is not an accepted field here' })]);
    const run = await svc.runToEnd('shout', { word: 'keyed', idempotencyKey: 'shout-keyed-1' });
    expect(run).toMatchObject({ runId: 'shout-keyed-1', status: 'success' });
  });

  it('runs its program: the payload file, the last stdout line as result, stderr in the run log', async () => {
    const run = await svc.runToEnd('shout', { word: 'hello' });
    expect(run.status).toBe('success');
    expect(run.result).toEqual({ success: true, shouted: 'HELLO', payloadFile: 'same' });
    const logs = await svc.api.get(`/api/tasks/runs/${encodeURIComponent(run.runId as string)}/logs`, TEST_KEYS.operator);
    const lines = (logs.body.attempts[0].lines as Array<{ line: string }>).map((l) => l.line);
    expect(lines).toEqual(expect.arrayContaining([expect.stringContaining('shouting hello'), expect.stringMatching(/UNSANDBOXED|bubblewrap/)]));
  });

  it('reruns, and runs once approved, as a built-in type does', async () => {
    const first = await svc.runToEnd('shout', { word: 'again' });
    const rerun = await svc.api.post(`/api/tasks/runs/${encodeURIComponent(first.runId as string)}/rerun`, {});
    expect(rerun.status).toBe(202);
    expect((await waitForTerminal(svc.api, rerun.body.runId as string)).result).toMatchObject({ shouted: 'AGAIN' });

    const held = await svc.api.trigger('shout', { word: 'careful', requiresApproval: true });
    expect(held.body.approval).toBe('required');
    const decided = await svc.api.post(`/api/approvals/${encodeURIComponent(held.body.taskId as string)}/decision`, { decision: 'approved' }, TEST_KEYS.admin);
    expect(decided.status).toBe(200);
    const replay = await waitFor(async () => {
      const runs = (await svc.api.get('/api/tasks/runs?type=shout&limit=50')).body.items as Array<{ runId: string; approvedFromTaskId?: string }>;
      return runs.find((r) => r.approvedFromTaskId === held.body.taskId);
    }, 10_000, 'the approved replay');
    expect((await waitForTerminal(svc.api, replay.runId)).result).toMatchObject({ shouted: 'CAREFUL' });
  });

  it('is accepted by a schedule, its payload checked by its schema', async () => {
    const bad = await svc.api.post('/api/schedules', { type: 'shout', cron: '0 3 * * *', payload: { word: '' } });
    expect(bad.status).toBe(400);
    const made = await svc.api.post('/api/schedules', { type: 'shout', cron: '0 3 * * *', payload: { word: 'nightly' } });
    expect(made.status).toBe(201);
  });

  it('ends a result its schema refuses invalid_result, naming the field', async () => {
    const run = await svc.runToEnd('wrong-shape');
    expect(run).toMatchObject({ status: 'failed', failureReason: 'invalid_result', result: null });
    expect(run.error).toContain('/count');
  });
});
