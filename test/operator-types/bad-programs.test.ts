import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapAvailable } from '../../src/worker-sdk/project-command.js';
import { tempDir } from '../support/config.js';
import { waitFor } from '../support/http.js';
import { shellManifest, startOperatorService, writeOperatorType, type OperatorService, type TypeFile } from '../support/operator-types.js';
import { isRunning } from '../support/worker-spawn.js';

/** Reads a string field of the payload file in plain sh (no jq on a bare host). */
const FIELD = 'field() { sed -e "s/.*\\"$1\\":\\"\\([^\\"]*\\)\\".*/\\1/" "$ORCH_PAYLOAD_FILE"; }';

const PROGRAMS: Record<string, { script?: string; manifest?: Record<string, unknown>; executable?: boolean }> = {
  'prints-words': { script: 'echo "all done, nothing to report"' },
  'prints-nothing': { script: 'echo "working" >&2' },
  'exits-three': { script: 'echo "disk full" >&2; exit 3' },
  'says-failed': { script: 'echo \'{"success":false,"error":"no rows to report"}\'' },
  floods: { script: 'yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 104857600' },
  forks: { script: `${FIELD}\nsleep 300 &\necho $! > "$(field pidFile)"\necho '{"left":"a child behind"}'` },
  'ignores-term': { script: `${FIELD}\ntrap "" TERM\necho $$ > "$(field pidFile)"\nsleep 300`, manifest: { timeoutMs: 4000 } },
  sleeps: { script: `${FIELD}\nsleep 300 &\necho $! > "$(field pidFile)"\nwait` },
  'missing-command': { manifest: { command: ['./nope.sh'] } },
  'not-executable': { script: 'echo \'{}\'', manifest: { command: ['./run.sh'] }, executable: false },
  'no-interpreter': { manifest: { command: ['no-such-interpreter-h49'] } },
};

/** Each program that misbehaves ends its run failed with a reason an operator understands; the service stays healthy. */
describe('operator programs that misbehave', () => {
  let svc: OperatorService;
  const pids = tempDir('orch-pids-');
  const pidOf = (name: string) => Number(readFileSync(join(pids, name), 'utf8').trim());

  beforeAll(async () => {
    svc = await startOperatorService((dir) => {
      for (const [type, program] of Object.entries(PROGRAMS)) {
        const files: Record<string, TypeFile> = program.script ? { 'run.sh': { text: program.script, executable: program.executable ?? false } } : {};
        writeOperatorType(dir, type, shellManifest(type, program.manifest ?? {}), files);
      }
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('no JSON on stdout', async () => {
    const words = await svc.runToEnd('prints-words');
    expect(words).toMatchObject({ status: 'failed', failureReason: 'worker-crash' });
    expect(words.error).toContain("the last line of the program's stdout is not JSON (it begins \"all done");
    const nothing = await svc.runToEnd('prints-nothing');
    expect(nothing.error).toContain('the program printed no JSON result: print one JSON object as the last line of stdout, or write it to ORCH_RESULT_FILE');
  });

  it('a non-zero exit, with the last line it wrote to stderr', async () => {
    const run = await svc.runToEnd('exits-three');
    expect(run).toMatchObject({ status: 'failed', failureReason: 'worker-crash', error: 'the program exited with code 3: disk full' });
  });

  it('"success": false, with its own reason', async () => {
    const run = await svc.runToEnd('says-failed');
    expect(run).toMatchObject({ status: 'failed', failureReason: 'worker-logical-failure', error: 'no rows to report' });
  });

  it('100 MB to stdout is stopped at the bound and the service stays healthy', async () => {
    const run = await svc.runToEnd('floods');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/the program wrote more than 8388608 bytes to stdout and was stopped/);
    expect((await svc.api.get('/health', null)).status).toBe(200);
  });

  it('forks and exits: its result counts and what it left running is ended', async () => {
    const run = await svc.runToEnd('forks', { pidFile: join(pids, 'forks') });
    expect(run).toMatchObject({ status: 'success', result: { success: true, left: 'a child behind' } });
    // In a sandbox the pid is the namespace's own; the namespace ends with the program anyway.
    if (!bubblewrapAvailable()) await waitFor(async () => (isRunning(pidOf('forks')) ? undefined : true), 5000, 'the forked child to be ended');
  });

  // The timeout leaves the worker's own start (a node process, slow on a loaded host) time to start the program.
  it('ignores SIGTERM: its timeout ends it with SIGKILL', async () => {
    const run = await svc.runToEnd('ignores-term', { pidFile: join(pids, 'ignores-term') });
    expect(run).toMatchObject({ status: 'failed', failureReason: 'worker-timeout' });
    expect(run.error).toContain('timed out after 4000 ms');
    if (!bubblewrapAvailable()) expect(isRunning(pidOf('ignores-term'))).toBe(false);
  });

  it('a cancel ends the whole process tree of a running program', async () => {
    const started = await svc.api.trigger('sleeps', { pidFile: join(pids, 'sleeps') });
    const runId = started.body.runId as string;
    // In a sandbox the program cannot write outside its scratch folder: running is all there is to see.
    const programStarted = () => bubblewrapAvailable() || existsSync(join(pids, 'sleeps'));
    await waitFor(async () => ((await svc.api.run(runId)).body.status === 'running' && programStarted() ? true : undefined), 10_000, 'the program to start');
    expect((await svc.api.post(`/api/tasks/runs/${encodeURIComponent(runId)}/cancel`, {})).status).toBeLessThan(300);
    const run = await waitFor(async () => {
      const body = (await svc.api.run(runId)).body;
      return body.status === 'cancelled' ? body : undefined;
    }, 20_000, 'the run to be cancelled');
    expect(run.status).toBe('cancelled');
    if (!bubblewrapAvailable()) expect(isRunning(pidOf('sleeps'))).toBe(false);
  });

  it('a missing or non-executable command', async () => {
    expect((await svc.runToEnd('missing-command')).error).toContain('the command "./nope.sh" does not exist in the type\'s folder');
    expect((await svc.runToEnd('not-executable')).error).toContain('the command "./run.sh" is not executable');
    expect((await svc.runToEnd('no-interpreter')).error).toContain('the command "no-such-interpreter-h49" was not found on PATH');
    expect((await svc.api.get('/health', null)).status).toBe(200);
  });
});
