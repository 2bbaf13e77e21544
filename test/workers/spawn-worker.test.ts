import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentRegistry } from '../../src/agents/registry.js';
import type { AppConfig } from '../../src/config/types.js';
import { createWorkerSpawner, MAX_WORKER_STDOUT_BYTES, removeWorkerDirectory } from '../../src/workers/spawn-worker.js';
import { CANCEL_ABORT_REASON } from '../../src/runtime/worker-port.js';
import { WORKER_ENV_ALLOWLIST } from '../../src/workers/worker-env.js';
import { tempDir, testConfig } from '../support/config.js';
import { isRunning, leftoverPayloadDirs, spawnErrors, waitUntil } from '../support/worker-spawn.js';
import { captureLogger } from '../support/captured-logger.js';
import { FIXTURE_AGENTS_DIR, STAND_IN_AGENTS_DIR } from '../support/paths.js';

const registry = loadAgentRegistry(FIXTURE_AGENTS_DIR);

function setup(config: AppConfig = testConfig(), killGraceMs?: number) {
  const { logger, lines } = captureLogger();
  const spawner = createWorkerSpawner({ config, registry, logger, killGraceMs });
  return { config, spawner, lines };
}

let runCounter = 0;
/** Run ids unique per test so leftover payload directories can be attributed. */
function runId(label: string): string {
  runCounter += 1;
  return `${label}-${process.pid}-${runCounter}`;
}

describe('worker spawner: outcomes', () => {
  it('runs a worker and returns its JSON result when it reports success', async () => {
    const { spawner, lines } = setup();
    const id = runId('success');
    const payload = { hello: 'world', nested: { n: 1, list: [1, 2, 3] } };
    const outcome = await spawner.run({ agentId: 'fixture-success', runId: id, taskType: 'fixture-success', payload });

    expect(outcome).toMatchObject({ ok: true, failure: null, error: null, exitCode: 0, signal: null });
    expect(outcome.result?.echo).toEqual(payload);
    expect(outcome.pid).toBeGreaterThan(0);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(spawnErrors(lines, id)).toHaveLength(0);
    expect(lines.some((l) => l.msg === 'agent worker succeeded' && l.runId === id && l.agentId === 'fixture-success')).toBe(true);
    expect(leftoverPayloadDirs(id)).toEqual([]);
  });

  it('fails the run on success:false and reports the worker’s own error', async () => {
    const { spawner, lines } = setup();
    const id = runId('logical');
    const outcome = await spawner.run({ agentId: 'fixture-logical-failure', runId: id, taskType: 'fixture-logical-failure', payload: {} });

    expect(outcome).toMatchObject({ ok: false, failure: 'logical-failure', error: 'fixture declined the work', exitCode: 0 });
    expect(outcome.result).toMatchObject({ success: false, operatorSummary: 'Refused: fixture declined the work' });
    const [logged] = spawnErrors(lines, id);
    expect(logged).toMatchObject({ level: 50, agentId: 'fixture-logical-failure', cause: 'fixture declined the work' });
  });

  it('fails the run when stdout is not one JSON object', async () => {
    const { spawner, lines } = setup();
    const id = runId('non-json');
    const outcome = await spawner.run({ agentId: 'fixture-non-json', runId: id, taskType: 'fixture-non-json', payload: {} });

    expect(outcome).toMatchObject({ ok: false, failure: 'non-json', result: null, exitCode: 0 });
    expect(outcome.error).toMatch(/not one JSON object .*all done, everything went fine/);
    expect(spawnErrors(lines, id)[0]).toMatchObject({ agentId: 'fixture-non-json', failure: 'non-json' });
  });

  it('reports a crash with its exit code, and keeps the error a crashing worker printed', async () => {
    const { spawner, lines } = setup();
    const silent = runId('crash');
    const plain = await spawner.run({ agentId: 'fixture-crash', runId: silent, taskType: 'fixture-crash', payload: {} });
    expect(plain).toMatchObject({ ok: false, failure: 'crash', exitCode: 3, result: null, error: 'worker exited with code 3' });
    expect(spawnErrors(lines, silent)[0]).toMatchObject({ agentId: 'fixture-crash', cause: 'worker exited with code 3', exitCode: 3 });

    const explained = await spawner.run({
      agentId: 'fixture-crash',
      runId: runId('crash-explained'),
      taskType: 'fixture-crash',
      payload: { reportError: 'database unreachable' },
    });
    expect(explained).toMatchObject({ ok: false, failure: 'crash', exitCode: 3, error: 'database unreachable' });
    expect(explained.result).toEqual({ success: false, error: 'database unreachable' });
    expect(leftoverPayloadDirs(silent)).toEqual([]);
  });

  it('stops a worker whose stdout passes the 8 MiB cap', async () => {
    const { spawner, lines } = setup();
    const id = runId('flood');
    const outcome = await spawner.run({ agentId: 'fixture-flood', runId: id, taskType: 'fixture-flood', payload: {} });

    expect(outcome).toMatchObject({ ok: false, failure: 'non-json', result: null, signal: 'SIGTERM' });
    expect(outcome.error).toContain(`exceeded the ${MAX_WORKER_STDOUT_BYTES}-byte limit`);
    expect(isRunning(outcome.pid!)).toBe(false);
    expect(spawnErrors(lines, id)).toHaveLength(1);
  });
});

describe('worker spawner: timeouts and aborts kill the whole process group', () => {
  async function readPids(pidFile: string): Promise<{ workerPid: number; grandchildPid: number }> {
    // The worker writes the file in place: it can exist before its text is complete.
    const parsed = (): { workerPid: number; grandchildPid: number } | null => {
      if (!existsSync(pidFile)) return null;
      try {
        return JSON.parse(readFileSync(pidFile, 'utf8')) as { workerPid: number; grandchildPid: number };
      } catch {
        return null;
      }
    };
    await waitUntil(() => parsed() !== null, 10_000, 'the worker to record its pids');
    return parsed()!;
  }

  it('kills the worker and its grandchild on timeout', async () => {
    const { spawner, lines } = setup();
    const id = runId('timeout');
    const pidFile = join(tempDir(), 'pids.json');
    const outcome = await spawner.run({
      agentId: 'fixture-timeout',
      runId: id,
      taskType: 'fixture-timeout',
      payload: { pidFile },
      timeoutMs: 1_500,
    });

    expect(outcome).toMatchObject({ ok: false, failure: 'timeout', error: 'worker timed out after 1500 ms', signal: 'SIGTERM' });
    const { workerPid, grandchildPid } = await readPids(pidFile);
    expect(workerPid).toBe(outcome.pid);
    await waitUntil(() => !isRunning(workerPid) && !isRunning(grandchildPid), 5_000, 'worker and grandchild to exit');
    expect(spawnErrors(lines, id)[0]).toMatchObject({ agentId: 'fixture-timeout', failure: 'timeout' });
    expect(leftoverPayloadDirs(id)).toEqual([]);
  });

  it('escalates to SIGKILL when the worker ignores SIGTERM', async () => {
    const { spawner } = setup(testConfig(), 300);
    const pidFile = join(tempDir(), 'pids.json');
    const outcome = await spawner.run({
      agentId: 'fixture-timeout',
      runId: runId('stubborn'),
      taskType: 'fixture-timeout',
      payload: { pidFile, ignoreSigterm: true },
      timeoutMs: 1_500,
    });

    expect(outcome).toMatchObject({ failure: 'timeout', signal: 'SIGKILL' });
    const { workerPid, grandchildPid } = await readPids(pidFile);
    await waitUntil(() => !isRunning(workerPid) && !isRunning(grandchildPid), 5_000, 'worker and grandchild to exit');
  });

  it('takes the timeout from the lane setting when the request has none', async () => {
    const config = { ...testConfig(), laneTimeoutsMs: { 'fixture-timeout': 1_200 }, workerTimeoutMs: 60_000 };
    const { spawner } = setup(config);
    const outcome = await spawner.run({
      agentId: 'fixture-timeout',
      runId: runId('lane-timeout'),
      taskType: 'fixture-timeout',
      payload: { pidFile: join(tempDir(), 'pids.json') },
    });
    expect(outcome).toMatchObject({ failure: 'timeout', error: 'worker timed out after 1200 ms' });
  });

  it('kills the worker and its grandchild when the run is aborted', async () => {
    const { spawner, lines } = setup();
    const id = runId('abort');
    const pidFile = join(tempDir(), 'pids.json');
    const controller = new AbortController();
    const running = spawner.run({
      agentId: 'fixture-timeout',
      runId: id,
      taskType: 'fixture-timeout',
      payload: { pidFile },
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    const { workerPid, grandchildPid } = await readPids(pidFile);
    controller.abort(new Error('service shutting down'));
    const outcome = await running;

    expect(outcome).toMatchObject({ ok: false, failure: 'aborted', error: 'worker aborted: service shutting down' });
    await waitUntil(() => !isRunning(workerPid) && !isRunning(grandchildPid), 5_000, 'worker and grandchild to exit');
    expect(spawnErrors(lines, id)[0]).toMatchObject({ failure: 'aborted' });
    expect(leftoverPayloadDirs(id)).toEqual([]);
  });

  it('does not start a worker for a run that was aborted already', async () => {
    const { spawner } = setup();
    const outcome = await spawner.run({
      agentId: 'fixture-success',
      runId: runId('pre-aborted'),
      taskType: 'fixture-success',
      payload: {},
      signal: AbortSignal.abort(),
    });
    expect(outcome).toMatchObject({ ok: false, failure: 'aborted', pid: null, exitCode: null });
  });
});

describe('worker spawner: agents that cannot run', () => {
  it('reports a lane without an entrypoint as not yet available', async () => {
    const { spawner, lines } = setup();
    const id = runId('no-entry');
    const outcome = await spawner.run({ agentId: 'fixture-no-entrypoint', runId: id, taskType: 'fixture-no-entrypoint', payload: {} });

    expect(outcome).toEqual({
      ok: false,
      result: null,
      error: 'lane not yet available: agent fixture-no-entrypoint has no worker entrypoint',
      failure: 'no-entrypoint',
      exitCode: null,
      signal: null,
      durationMs: expect.any(Number),
      pid: null,
    });
    expect(spawnErrors(lines, id)[0]).toMatchObject({
      agentId: 'fixture-no-entrypoint',
      cause: 'lane not yet available: agent fixture-no-entrypoint has no worker entrypoint',
    });
  });

  it('refuses an unknown agent and a lane the agent does not serve', async () => {
    const { spawner, lines } = setup();
    const unknown = await spawner.run({ agentId: 'nobody', runId: runId('unknown'), taskType: 'x', payload: {} });
    expect(unknown).toMatchObject({ failure: 'spawn-error', error: 'unknown agent nobody' });

    const id = runId('wrong-lane');
    const wrongLane = await spawner.run({ agentId: 'fixture-success', runId: id, taskType: 'summarize-content', payload: {} });
    expect(wrongLane).toMatchObject({ failure: 'spawn-error', error: 'agent fixture-success does not serve lane summarize-content' });
    expect(spawnErrors(lines, id)).toHaveLength(1);
  });
});

describe('worker spawner: what the worker is given', () => {
  const secrets = {
    API_KEY: 'leak-me-api-key',
    API_KEY_ROTATION: '[{"key":"leak-me-rotation"}]',
    WEBHOOK_SECRET: 'leak-me-webhook',
    DATABASE_URL: 'postgres://leak-me@db/app',
    KV_STORE_URL: 'redis://leak-me@kv',
    OPENAI_API_KEY: 'leak-me-provider',
    NODE_OPTIONS: '--require /leak-me.js',
  };
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const [name, value] of Object.entries(secrets)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('passes only the allowlisted environment, even when the parent holds secrets', async () => {
    const { spawner, config } = setup();
    const id = runId('env');
    const outcome = await spawner.run({ agentId: 'fixture-env', runId: id, taskType: 'fixture-env', payload: {} });

    expect(outcome.ok).toBe(true);
    const env = outcome.result!.env as Record<string, string>;
    const allowed = new Set<string>([...WORKER_ENV_ALLOWLIST, 'ORCHESTRATOR_WORKSPACE_ROOT', 'ORCHESTRATOR_RUN_ID', 'ORCHESTRATOR_TASK_TYPE', 'ORCHESTRATOR_PID', 'ORCHESTRATOR_RESULT_FILE', 'ORCHESTRATOR_PROCESS_GROUPS_FILE']);
    expect((outcome.result!.envKeys as string[]).filter((key) => !allowed.has(key))).toEqual([]);
    for (const name of Object.keys(secrets)) expect(env).not.toHaveProperty(name);
    expect(JSON.stringify(outcome.result)).not.toContain('leak-me');
    // Without explicit overrides the worker falls back to the orchestrator's defaults.
    expect(env).not.toHaveProperty('STATE_FILE');
    expect(env).not.toHaveProperty('ORCHESTRATOR_CONFIG');
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.ORCHESTRATOR_WORKSPACE_ROOT).toBe(config.workspaceRoot);
    expect(env.ORCHESTRATOR_RUN_ID).toBe(id);
    // The worker's parent is the orchestrator it names (the worker SDK's orphan check relies on it).
    expect(env.ORCHESTRATOR_PID).toBe(String(process.pid));
    // Where the worker records process groups it starts outside its own: in its own payload directory.
    expect(env.ORCHESTRATOR_PROCESS_GROUPS_FILE).toMatch(/orchestrator-.*\/process-groups$/);
  });

  it('hands state and config overrides down to the worker', async () => {
    const base = tempDir();
    writeFileSync(join(base, 'custom.config.json'), '{}');
    const config = testConfig({ STATE_FILE: 'sql:./state/orchestrator.sqlite', ORCHESTRATOR_CONFIG: 'custom.config.json' }, base);
    const { spawner } = setup(config);
    const outcome = await spawner.run({ agentId: 'fixture-env', runId: runId('overrides'), taskType: 'fixture-env', payload: {} });

    const env = outcome.result!.env as Record<string, string>;
    expect(env.STATE_FILE).toBe(config.stateTarget);
    expect(env.STATE_FILE).toBe(`sql:${join(base, 'state', 'orchestrator.sqlite')}`);
    expect(env.ORCHESTRATOR_CONFIG).toBe(join(base, 'custom.config.json'));
  });

  it('runs the worker in the workspace root, creating it when missing', async () => {
    const base = tempDir();
    const config = testConfig({ WORKSPACE_ROOT: './not-yet/workspace' }, base);
    expect(existsSync(config.workspaceRoot)).toBe(false);
    const { spawner } = setup(config);
    const outcome = await spawner.run({ agentId: 'fixture-env', runId: runId('cwd'), taskType: 'fixture-env', payload: {} });

    expect(outcome.ok).toBe(true);
    expect(outcome.result!.cwd).toBe(realpathSync(config.workspaceRoot));
  });

  it('writes the payload file 0600 in a private directory and removes it after the run', async () => {
    const { spawner } = setup();
    const id = `approval-replay:${process.pid}/../../etc`;
    const outcome = await spawner.run({ agentId: 'fixture-env', runId: id, taskType: 'fixture-env', payload: { a: 1 } });

    const payloadPath = outcome.result!.payloadPath as string;
    expect(outcome.result).toMatchObject({ payloadFileMode: '0600', payloadDirMode: '0700' });
    expect(outcome.result!.argv).toEqual(['--payload', payloadPath]);
    const sanitized = `approval-replay_${process.pid}_.._.._etc`;
    expect(payloadPath.startsWith(join(tmpdir(), `orchestrator-${sanitized}-`))).toBe(true);
    expect(payloadPath.endsWith('/payload.json')).toBe(true);
    expect(existsSync(payloadPath)).toBe(false);
    expect(leftoverPayloadDirs(sanitized)).toEqual([]);
  });
});

describe('worker spawner: the payload directory when the runtime keeps it', () => {
  // The stand-in writes its durable result.json before answering, as the worker SDK does.
  const standIns = loadAgentRegistry(STAND_IN_AGENTS_DIR);
  const ledgered: Array<{ runId: string; directory?: string | null }> = [];
  const ledger = { started: (entry: { runId: string; directory?: string | null }) => ledgered.push(entry), ended: () => undefined };
  const spawner = createWorkerSpawner({ config: testConfig(), registry: standIns, logger: captureLogger().logger, groupLedger: ledger, killGraceMs: 300, cancelGraceMs: 300 });
  const run = (id: string, payload: Record<string, unknown>, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    spawner.run({ agentId: 'summarization-agent', runId: id, taskType: 'summarize-content', payload, retainDirectory: true, ...extra });

  it('keeps only the durable result of a worker that answered, and records the directory for a restart', async () => {
    for (const mode of ['success', 'logical-failure']) {
      const id = runId(`kept-${mode}`);
      const outcome = await run(id, { content: 'x', mode });
      expect(outcome.directory).toBe(leftoverPayloadDirs(id)[0]);
      expect(readdirSync(outcome.directory!)).toEqual(['result.json']);
      expect(ledgered.find((entry) => entry.runId === id)?.directory).toBe(outcome.directory);
      await removeWorkerDirectory(outcome.directory!);
      expect(leftoverPayloadDirs(id)).toEqual([]);
    }
  });

  it('removes the directory of an attempt that ended without a result: crash, timeout, shutdown, cancel, lost lease', async () => {
    const crashed = runId('gone-crash');
    expect(await run(crashed, { content: 'x', mode: 'crash' })).toMatchObject({ failure: 'crash', directory: null });
    expect(leftoverPayloadDirs(crashed)).toEqual([]);

    const timedOut = runId('gone-timeout');
    expect(await run(timedOut, { content: 'x', mode: 'timeout' }, { timeoutMs: 1_000 })).toMatchObject({ failure: 'timeout', directory: null });
    expect(leftoverPayloadDirs(timedOut)).toEqual([]);

    for (const reason of ['shutdown', CANCEL_ABORT_REASON, 'lease-lost']) {
      const id = runId(`gone-${reason}`);
      const log = join(tempDir(), 'executions.jsonl');
      const controller = new AbortController();
      const running = run(id, { content: 'x', mode: 'timeout', log }, { timeoutMs: 30_000, signal: controller.signal });
      await waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('"start"'), 10_000, 'the worker to start');
      expect(leftoverPayloadDirs(id)).toHaveLength(1);
      controller.abort(reason);
      expect(await running).toMatchObject({ failure: 'aborted', directory: null });
      expect(leftoverPayloadDirs(id)).toEqual([]);
    }
  }, 30_000);
});
