import { describe, expect, it } from 'vitest';
import { validatePayload } from '../../src/runtime/payload-validation.js';
import {
  defineLane,
  payloadPathFromArgv,
  refuseLane,
  runAgentMain,
  specialistContract,
  type AgentMainIo,
  type Lane,
  type WorkerLane,
  type LanePayload,
  type LaneRouter,
} from '../../src/worker-sdk/index.js';

/** Runs runAgentMain against in-memory process edges and returns what the worker would print. */
async function runMain(lane: WorkerLane | LaneRouter, options: { files?: Record<string, string>; argv?: string[]; env?: NodeJS.ProcessEnv } = {}) {
  const written: string[] = [];
  const exits: number[] = [];
  const io: Partial<AgentMainIo> = {
    argv: options.argv ?? ['--payload', '/tmp/run/payload.json'],
    env: options.env ?? {},
    cwd: () => '/srv/workspace',
    readFile: async (path) => {
      const content = (options.files ?? {})[path];
      if (content === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return content;
    },
    writeStdout: async (text) => void written.push(text),
    exit: (code) => void exits.push(code),
    reserveStdout: false,
    watchParent: false,
  };
  const code = await runAgentMain(lane, io);
  expect(written).toHaveLength(1);
  expect(written[0]!.endsWith('\n')).toBe(true);
  expect(exits).toEqual([code]);
  return { code, output: JSON.parse(written[0]!) as Record<string, unknown> };
}

const files = { '/tmp/run/payload.json': JSON.stringify({ content: 'hello' }) };
const payloadFile = (payload: unknown) => ({ '/tmp/run/payload.json': JSON.stringify(payload) });

/** A summarize-content lane for the protocol tests; the payload is valid for its schema. */
const summarizeLane = (lane: Lane<LanePayload<'summarize-content'>>) => defineLane('summarize-content', lane);

describe('runAgentMain', () => {
  it('hands the payload and context to the lane and prints its result once, exiting 0', async () => {
    let seen: unknown[] = [];
    const { code, output } = await runMain(
      summarizeLane(async (payload, context) => {
        seen = [payload, context];
        return { success: true, length: payload.content.length };
      }),
      { files, env: { ORCHESTRATOR_WORKSPACE_ROOT: '/data/workspace', ORCHESTRATOR_RUN_ID: 'run-7' } },
    );
    expect(code).toBe(0);
    expect(output).toEqual({ success: true, length: 5 });
    expect(seen).toEqual([{ content: 'hello' }, { workspaceRoot: '/data/workspace', runId: 'run-7', model: { complete: expect.any(Function) } }]);
  });

  it('falls back to the working directory and no run id outside the orchestrator', async () => {
    let context: unknown;
    await runMain(summarizeLane((_p, ctx) => ((context = ctx), { success: true })), { files });
    expect(context).toEqual({ workspaceRoot: '/srv/workspace', runId: null, model: { complete: expect.any(Function) } });
  });

  it('exits 0 for a logical failure: declining the input is a normal answer', async () => {
    const { code, output } = await runMain(summarizeLane(() => ({ success: false, error: 'not today' })), { files });
    expect(code).toBe(0);
    expect(output).toEqual({ success: false, error: 'not today' });
  });

  it('turns an exception into {success:false, error} with exit code 1', async () => {
    const { code, output } = await runMain(
      summarizeLane(() => {
        throw new Error('boom');
      }),
      { files },
    );
    expect(code).toBe(1);
    expect(output).toEqual({ success: false, error: 'boom' });
  });

  it.each([
    ['a missing --payload argument', { argv: [] }, 'missing --payload <file> argument'],
    ['an unreadable payload file', { argv: ['--payload', '/nowhere.json'] }, "ENOENT: no such file, open '/nowhere.json'"],
    ['a payload that is not an object', { files: { '/tmp/run/payload.json': '[1,2]' } }, 'payload file /tmp/run/payload.json does not hold a JSON object'],
  ])('reports %s as a failure', async (_label, options, error) => {
    const { code, output } = await runMain(summarizeLane(() => ({ success: true })), options);
    expect(code).toBe(1);
    expect(output).toEqual({ success: false, error });
  });

  it('reports a lane result that is not a JSON object', async () => {
    const notObject = (() => 'done') as unknown as Lane<LanePayload<'summarize-content'>>;
    const { code, output } = await runMain(summarizeLane(notObject), { files });
    expect(code).toBe(1);
    expect(output).toEqual({ success: false, error: 'lane returned string, expected an object' });

    const cyclic: Record<string, unknown> = { success: true };
    cyclic.self = cyclic;
    const failed = await runMain(summarizeLane(() => cyclic), { files });
    expect(failed.code).toBe(1);
    expect(failed.output.error).toMatch(/circular/i);
  });

  it('accepts --payload=<file> as well', () => {
    expect(payloadPathFromArgv(['--payload=/tmp/p.json'])).toBe('/tmp/p.json');
    expect(payloadPathFromArgv(['--verbose', '--payload', '/tmp/q.json'])).toBe('/tmp/q.json');
  });
});

describe('runAgentMain: the payload contract', () => {
  it('refuses a payload its schema refuses with the schema check admission applies, exiting 0 without running the lane', async () => {
    let ran = false;
    const lane = defineLane('code-index', () => ((ran = true), { success: true }));
    const { code, output } = await runMain(lane, { files: payloadFile({ scope: 5 }) });
    expect(ran).toBe(false);
    expect(code).toBe(0);
    expect(output).toEqual({
      success: false,
      error: 'payload refused: /scope must be string',
      operatorSummary: 'Refused: payload refused: /scope must be string',
      recommendedNextActions: [expect.stringContaining('code-index payload schema')],
      specialistContract: expect.objectContaining({ status: 'refused', refusalReason: 'payload refused: /scope must be string' }),
      taskType: 'code-index',
      problems: [{ path: '/scope', message: 'must be string' }],
    });
  });

  it('names every problem, in the words and JSON pointers of the admission check', async () => {
    const bad = { scope: 'projects/app', constraints: { maxFilesChanged: 51 }, changes: [{ path: 'a.js' }], intent: 3 };
    const { code, output } = await runMain(defineLane('build-refactor', () => ({ success: true })), { files: payloadFile(bad) });
    expect(code).toBe(0);
    const problems = output.problems as Array<{ path: string; message: string }>;
    expect(problems).toEqual(expect.arrayContaining([{ path: '/constraints/maxFilesChanged', message: 'must be <= 50' }, { path: '/intent', message: 'must be string' }]));
    expect(output.error).toBe(`payload refused: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
    // The trigger route would have refused the same payload with the same details under /body/payload.
    expect(validatePayload('build-refactor', bad)).toEqual(problems.map((p) => ({ path: `/body/payload${p.path}`, message: p.message })));
  });

  it('refuses a missing required field', async () => {
    const { output } = await runMain(summarizeLane(() => ({ success: true })), { files: payloadFile({ format: 'bullets' }) });
    expect(output).toMatchObject({ success: false, error: 'payload refused: /content is required' });
  });

  it('hands a valid payload to the lane unchanged: no defaults filled in, unknown fields kept', async () => {
    const sent = { content: 'hello', sourceType: 'note', extra: { nested: [1, 2] } };
    let seen: unknown;
    const { output } = await runMain(summarizeLane((payload) => ((seen = payload), { success: true })), { files: payloadFile(sent) });
    expect(output).toEqual({ success: true });
    expect(seen).toEqual(sent);
    expect(Object.keys(seen as object)).toEqual(['content', 'sourceType', 'extra']);
  });

  it('accepts the service-reserved __ fields and hands them on unchanged', async () => {
    const snapshot = { generatedAt: '2024-05-01T00:00:00.000Z', queue: { queued: 1 } };
    const sent = {
      scope: 'projects/app',
      __controlPlane: snapshot,
      __knowledge: { docsPath: '/srv/docs', knowledgePackDir: '/srv/packs', logsDir: '/srv/logs' },
      __marketResearch: { allowPrivateHosts: false },
      __communityResponse: { items: [] },
      __incidentId: 'inc-1',
    };
    let seen: LanePayload<'release-readiness'> | undefined;
    const { output } = await runMain(
      defineLane('release-readiness', (payload) => ((seen = payload), { success: true })),
      { files: payloadFile(sent) },
    );
    expect(output).toEqual({ success: true });
    expect(seen).toEqual(sent);
    expect(seen?.__controlPlane).toEqual(snapshot);
  });

  it('lets a router pick the lane of an agent serving several types, then checks against that lane', async () => {
    const calls: string[] = [];
    const monitor = defineLane('system-monitor', () => (calls.push('system-monitor'), { success: true }));
    const triage = defineLane('incident-triage', () => (calls.push('incident-triage'), { success: true }));
    const router: LaneRouter = (_payload, env) => (env.ORCHESTRATOR_TASK_TYPE === 'system-monitor' ? monitor : triage);

    await runMain(router, { files: payloadFile({ type: 'health' }), env: { ORCHESTRATOR_TASK_TYPE: 'system-monitor' } });
    await runMain(router, { files: payloadFile({}), env: {} });
    expect(calls).toEqual(['system-monitor', 'incident-triage']);

    const refused = await runMain(router, { files: payloadFile({ type: 'everything' }), env: { ORCHESTRATOR_TASK_TYPE: 'system-monitor' } });
    expect(refused.output).toMatchObject({ success: false, taskType: 'system-monitor', error: 'payload refused: /type must be one of: health, resources, queue, services' });
    expect(calls).toHaveLength(2);
  });
});

describe('specialist contracts', () => {
  const identity = { role: 'summarization-agent', workflowStage: 'summarize', deliverable: 'extractive summary' };

  it('defaults to a completed contract without reasons', () => {
    expect(specialistContract(identity)).toEqual({ ...identity, status: 'completed', refusalReason: null, escalationReason: null });
  });

  it('requires the reason of a refusal or an escalation', () => {
    expect(() => specialistContract({ ...identity, status: 'refused' })).toThrow(/refusalReason/);
    expect(() => specialistContract({ ...identity, status: 'escalated' })).toThrow(/escalationReason/);
    expect(specialistContract({ ...identity, status: 'escalated', escalationReason: 'needs a human' }).escalationReason).toBe('needs a human');
  });

  it('builds a refusal result that carries the reason everywhere an operator looks', () => {
    expect(refuseLane(identity, 'content is empty', ['Send content.'])).toEqual({
      success: false,
      error: 'content is empty',
      operatorSummary: 'Refused: content is empty',
      recommendedNextActions: ['Send content.'],
      specialistContract: { ...identity, status: 'refused', refusalReason: 'content is empty', escalationReason: null },
    });
  });
});
