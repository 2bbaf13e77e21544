import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrapAvailable } from '../../src/worker-sdk/project-command.js';
import { tempDir } from '../support/config.js';
import { waitFor } from '../support/http.js';
import { shellManifest, writeOperatorType } from '../support/operator-types.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { isRunning } from '../support/worker-spawn.js';

/** The service dies mid-run (SIGKILL, no shutdown): the program's whole process tree ends with it. */
describe.skipIf(bubblewrapAvailable())('an operator program when the service dies (unsandboxed host: the pids are the host\'s)', () => {
  let svc: RuntimeService | null = null;
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('ends the program and what it started', async () => {
    const base = tempDir('orch-optypes-death-');
    const typesDir = join(base, 'task-types');
    mkdirSync(typesDir, { recursive: true });
    const pidFile = join(base, 'pids');
    const script = `sleep 300 &\necho $! > "${pidFile}"\necho $$ >> "${pidFile}"\nwait`;
    writeOperatorType(typesDir, 'outlives', shellManifest('outlives'), { 'run.sh': { text: script } });
    svc = await startRuntimeService({ taskTypesDir: typesDir, sandbox: { allowUnsandboxed: true } }, base);
    const started = await svc.api.trigger('outlives', {});
    expect(started.status).toBe(202);
    const pids = await waitFor(async () => {
      const lines = readFileSync(pidFile, 'utf8').trim().split('\n');
      return lines.length === 2 ? lines.map(Number) : undefined;
    }, 15_000, 'the program to start');
    expect(pids.every(isRunning)).toBe(true);

    process.kill(svc.service.child.pid!, 'SIGKILL');
    await waitFor(async () => (pids.some(isRunning) ? undefined : true), 10_000, 'the program and its child to end');
  });
});
