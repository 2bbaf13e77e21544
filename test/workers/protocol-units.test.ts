import { describe, expect, it } from 'vitest';
import { classifyWorkerExit, parseWorkerStdout } from '../../src/workers/classify-outcome.js';
import { sanitizeRunId } from '../../src/workers/payload-file.js';
import { resolveWorkerTimeout } from '../../src/workers/resolve-timeout.js';
import { buildWorkerEnv } from '../../src/workers/worker-env.js';

const exited = (exitCode: number | null, stdout: string, signal: string | null = null) => ({ exitCode, signal, stdout, stoppedBy: null });

describe('classifyWorkerExit', () => {
  it('succeeds only for exit 0, one JSON object and success === true', () => {
    expect(classifyWorkerExit(exited(0, '{"success":true,"n":1}\n'))).toEqual({
      ok: true,
      result: { success: true, n: 1 },
      error: null,
      failure: null,
    });
    expect(classifyWorkerExit(exited(0, '{"success":"true"}')).failure).toBe('logical-failure');
    expect(classifyWorkerExit(exited(0, '{"done":true}')).error).toBe('worker result did not report success: true');
  });

  it('treats two objects, an array or nothing on stdout as non-JSON', () => {
    expect(classifyWorkerExit(exited(0, '{"success":true}\n{"success":true}')).failure).toBe('non-json');
    expect(classifyWorkerExit(exited(0, '[{"success":true}]'))).toMatchObject({
      failure: 'non-json',
      error: 'worker stdout is JSON but not an object',
    });
    expect(classifyWorkerExit(exited(0, ''))).toMatchObject({ failure: 'non-json', error: 'worker wrote nothing to stdout' });
  });

  it('calls a non-zero exit or a fatal signal a crash, even with success:true on stdout', () => {
    expect(classifyWorkerExit(exited(2, '{"success":true}'))).toMatchObject({ ok: false, failure: 'crash', error: 'worker exited with code 2' });
    expect(classifyWorkerExit(exited(null, '', 'SIGSEGV'))).toMatchObject({ failure: 'crash', error: 'worker was killed by SIGSEGV' });
  });

  it('lets the orchestrator’s own stop reason win over the exit status', () => {
    const stopped = { exitCode: null, signal: 'SIGTERM', stdout: '', stoppedBy: { failure: 'timeout' as const, error: 'worker timed out after 5 ms' } };
    expect(classifyWorkerExit(stopped)).toEqual({ ok: false, result: null, error: 'worker timed out after 5 ms', failure: 'timeout' });
  });

  it('quotes the start of unparseable output, bounded', () => {
    const parsed = parseWorkerStdout('x'.repeat(500));
    expect('problem' in parsed && parsed.problem.length).toBeLessThan(200);
  });
});

describe('resolveWorkerTimeout', () => {
  const config = { laneTimeoutsMs: { 'summarize-content': 30_000 }, workerTimeoutMs: 120_000 };
  it('prefers request, then lane setting, then manifest, then the service default', () => {
    expect(resolveWorkerTimeout(5_000, 'summarize-content', config, 60_000)).toBe(5_000);
    expect(resolveWorkerTimeout(undefined, 'summarize-content', config, 60_000)).toBe(30_000);
    expect(resolveWorkerTimeout(undefined, 'code-index', config, 60_000)).toBe(60_000);
    expect(resolveWorkerTimeout(undefined, 'code-index', config, undefined)).toBe(120_000);
  });
});

describe('buildWorkerEnv', () => {
  const base = { stateOverridden: false, stateTarget: '/srv/state.json', configFile: null, workspaceRoot: '/srv/ws' };
  const parent = { PATH: '/usr/bin', HOME: '/home/svc', LANG: 'C.UTF-8', API_KEY: 'k', WEBHOOK_SECRET: 'w', DATABASE_URL: 'd', NODE_OPTIONS: '-r x' };

  it('keeps only allowlisted parent variables and adds the run coordinates', () => {
    expect(buildWorkerEnv(parent, base, 'run-1', undefined, 4242)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/svc',
      LANG: 'C.UTF-8',
      ORCHESTRATOR_WORKSPACE_ROOT: '/srv/ws',
      ORCHESTRATOR_RUN_ID: 'run-1',
      ORCHESTRATOR_PID: '4242',
    });
  });

  it("names this process as the worker's orchestrator by default", () => {
    expect(buildWorkerEnv(parent, base, 'run-1').ORCHESTRATOR_PID).toBe(String(process.pid));
  });

  it('adds STATE_FILE and ORCHESTRATOR_CONFIG only when the operator set them', () => {
    const env = buildWorkerEnv(parent, { ...base, stateOverridden: true, stateTarget: 'sql:/srv/s.db', configFile: '/etc/orch.json' }, 'r');
    expect(env).toMatchObject({ STATE_FILE: 'sql:/srv/s.db', ORCHESTRATOR_CONFIG: '/etc/orch.json' });
  });
});

describe('sanitizeRunId', () => {
  it('keeps file-name-safe characters only, bounded in length', () => {
    expect(sanitizeRunId('approval-replay:1f2e/../x y')).toBe('approval-replay_1f2e_.._x_y');
    expect(sanitizeRunId('a'.repeat(300))).toHaveLength(100);
    expect(sanitizeRunId('')).toBe('run');
  });
});
