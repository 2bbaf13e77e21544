import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { expectedParentPid } from '../../src/worker-sdk/parent-watch.js';

const WATCH_MODULE = join(import.meta.dirname, '..', '..', 'dist', 'src', 'worker-sdk', 'parent-watch.js');
const CHILD_GROUPS_MODULE = join(import.meta.dirname, '..', '..', 'dist', 'src', 'common', 'child-groups.js');

describe('exitWhenOrphaned', () => {
  it('ends a worker once the process that spawned it is gone', async () => {
    expect(existsSync(WATCH_MODULE), 'dist/ is missing: run npm run build').toBe(true);
    // The "orchestrator" starts a detached worker that watches its parent, prints the worker pid and dies.
    const workerCode = `import(${JSON.stringify(WATCH_MODULE)}).then((m) => { m.exitWhenOrphaned(50); setInterval(() => {}, 1000); });`;
    const parentCode = `
      const { spawn } = require('node:child_process');
      const w = spawn(process.execPath, ['-e', ${JSON.stringify(workerCode)}], { detached: true, stdio: 'ignore' });
      console.log(w.pid);
      setTimeout(() => process.exit(0), 300);`;
    const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
    const workerPid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(pidAlive(workerPid)).toBe(true);
    await new Promise((r) => parent.on('exit', r));
    await waitFor(async () => (pidAlive(workerPid) ? undefined : true), 3000, 'the orphaned worker to exit');
  });

  it('ends what an orphaned worker started too: its own group and the groups it recorded (a project command)', async () => {
    expect(existsSync(CHILD_GROUPS_MODULE), 'dist/ is missing: run npm run build').toBe(true);
    // The worker starts a child in its own group and a command in a group of its own (recorded as
    // the SDK's project commands are), both ignoring SIGTERM, prints the three pids and watches.
    const workerCode = `
      const { spawn } = require('node:child_process');
      const sleeper = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";
      Promise.all([import(${JSON.stringify(WATCH_MODULE)}), import(${JSON.stringify(CHILD_GROUPS_MODULE)})]).then(([watch, groups]) => {
        const inGroup = spawn(process.execPath, ['-e', sleeper], { stdio: 'ignore' });
        const ownGroup = spawn(process.execPath, ['-e', sleeper], { stdio: 'ignore', detached: true });
        groups.recordChildGroup(ownGroup.pid, {});
        console.log([process.pid, inGroup.pid, ownGroup.pid].join(' '));
        watch.exitWhenOrphaned(50);
        setInterval(() => {}, 1000);
      });`;
    const parentCode = `
      const { spawn } = require('node:child_process');
      const w = spawn(process.execPath, ['-e', ${JSON.stringify(workerCode)}], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
      w.stdout.once('data', (d) => { process.stdout.write(d); setTimeout(() => process.exit(0), 100); });`;
    const out = await new Promise<string>((resolve) => {
      const p = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      p.stdout.on('data', (d: Buffer) => (text += d.toString()));
      p.on('exit', () => resolve(text));
    });
    const pids = out.trim().split(' ').map(Number);
    expect(pids).toHaveLength(3);
    try {
      await waitFor(async () => (pids.every((pid) => !pidAlive(pid)) ? true : undefined), 5000, 'the worker and everything it started to end');
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });

  it('ends a worker at once when its stated orchestrator is not its parent (the orchestrator died while it started)', async () => {
    expect(existsSync(WATCH_MODULE), 'dist/ is missing: run npm run build').toBe(true);
    // The worker says "started" only if the watch let it go on.
    const workerCode = `import(${JSON.stringify(WATCH_MODULE)}).then((m) => { m.exitWhenOrphaned(50); console.log('started'); setTimeout(() => {}, 2000); });`;
    const run = (orchestratorPid: string) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const w = spawn(process.execPath, ['-e', workerCode], { env: { ...process.env, ORCHESTRATOR_PID: orchestratorPid }, stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        w.stdout.on('data', (d: Buffer) => (out += d.toString()));
        w.on('exit', (code) => resolve({ code, out }));
      });
    // A pid that is not the parent: the watch ends the worker before it does any work.
    expect(await run('1')).toEqual({ code: 137, out: '' });
    // Its real parent (this test process): the worker runs.
    expect(await run(String(process.pid))).toEqual({ code: 0, out: 'started\n' });
  });

  it('reads the stated orchestrator pid, or falls back to the parent seen now', () => {
    expect(expectedParentPid({ ORCHESTRATOR_PID: '4242' })).toBe(4242);
    expect(expectedParentPid({})).toBe(process.ppid);
    expect(expectedParentPid({ ORCHESTRATOR_PID: 'x' })).toBe(process.ppid);
  });
});
