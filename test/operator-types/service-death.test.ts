import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitFor } from '../support/http.js';
import { shellManifest, writeOperatorType } from '../support/operator-types.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { isRunning } from '../support/worker-spawn.js';

/**
 * The host pids of processes whose command line is exactly `words`. Found through /proc, so the
 * same check holds in the sandbox (whose processes have pids of their own inside) and without it.
 */
function pidsRunning(words: string[]): number[] {
  const wanted = words.join('\0');
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === wanted;
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

/** The service dies mid-run (SIGKILL, no shutdown): the program's whole process tree ends with it, sandboxed or not. */
describe('an operator program when the service dies', () => {
  let svc: RuntimeService | null = null;
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('ends the program and what it started', async () => {
    const base = tempDir('orch-optypes-death-');
    const typesDir = join(base, 'task-types');
    mkdirSync(typesDir, { recursive: true });
    // A sleep no other process runs: its length is this test's own marker.
    const seconds = String(3000 + Math.floor(Math.random() * 5000));
    writeOperatorType(typesDir, 'outlives', shellManifest('outlives'), { 'run.sh': { text: `sleep ${seconds} &\nwait` } });
    svc = await startRuntimeService({ taskTypesDir: typesDir, sandbox: { allowUnsandboxed: true } }, base);
    const started = await svc.api.trigger('outlives', {});
    expect(started.status).toBe(202);
    const pids = await waitFor(async () => {
      const found = pidsRunning(['sleep', seconds]);
      return found.length > 0 ? found : undefined;
    }, 15_000, 'the program to start its child');
    expect(pids.every(isRunning)).toBe(true);

    process.kill(svc.service.child.pid!, 'SIGKILL');
    await waitFor(async () => (pids.some(isRunning) ? undefined : true), 10_000, 'the program and its child to end');
  });
});
