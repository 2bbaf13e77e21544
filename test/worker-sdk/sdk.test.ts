import { describe, expect, it } from 'vitest';
import { payloadPathFromArgv, refuseLane, runAgentMain, specialistContract, type AgentMainIo, type Lane } from '../../src/worker-sdk/index.js';

/** Runs runAgentMain against in-memory process edges and returns what the worker would print. */
async function runMain<P>(lane: Lane<P>, options: { files?: Record<string, string>; argv?: string[]; env?: NodeJS.ProcessEnv } = {}) {
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

describe('runAgentMain', () => {
  it('hands the payload and context to the lane and prints its result once, exiting 0', async () => {
    let seen: unknown[] = [];
    const { code, output } = await runMain(
      async (payload: { content: string }, context) => {
        seen = [payload, context];
        return { success: true, length: payload.content.length };
      },
      { files, env: { ORCHESTRATOR_WORKSPACE_ROOT: '/data/workspace', ORCHESTRATOR_RUN_ID: 'run-7' } },
    );
    expect(code).toBe(0);
    expect(output).toEqual({ success: true, length: 5 });
    expect(seen).toEqual([{ content: 'hello' }, { workspaceRoot: '/data/workspace', runId: 'run-7' }]);
  });

  it('falls back to the working directory and no run id outside the orchestrator', async () => {
    let context: unknown;
    await runMain((_p, ctx) => ((context = ctx), { success: true }), { files });
    expect(context).toEqual({ workspaceRoot: '/srv/workspace', runId: null });
  });

  it('exits 0 for a logical failure: declining the input is a normal answer', async () => {
    const { code, output } = await runMain(() => ({ success: false, error: 'not today' }), { files });
    expect(code).toBe(0);
    expect(output).toEqual({ success: false, error: 'not today' });
  });

  it('turns an exception into {success:false, error} with exit code 1', async () => {
    const { code, output } = await runMain(
      () => {
        throw new Error('boom');
      },
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
    const { code, output } = await runMain(() => ({ success: true }), options);
    expect(code).toBe(1);
    expect(output).toEqual({ success: false, error });
  });

  it('reports a lane result that is not a JSON object', async () => {
    const notObject = (() => 'done') as unknown as Lane<unknown>;
    const { code, output } = await runMain(notObject, { files });
    expect(code).toBe(1);
    expect(output).toEqual({ success: false, error: 'lane returned string, expected an object' });

    const cyclic: Record<string, unknown> = { success: true };
    cyclic.self = cyclic;
    const failed = await runMain(() => cyclic, { files });
    expect(failed.code).toBe(1);
    expect(failed.output.error).toMatch(/circular/i);
  });

  it('accepts --payload=<file> as well', () => {
    expect(payloadPathFromArgv(['--payload=/tmp/p.json'])).toBe('/tmp/p.json');
    expect(payloadPathFromArgv(['--verbose', '--payload', '/tmp/q.json'])).toBe('/tmp/q.json');
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
