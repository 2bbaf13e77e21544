import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';

const WATCH_MODULE = join(import.meta.dirname, '..', '..', 'dist', 'src', 'worker-sdk', 'parent-watch.js');

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
});
