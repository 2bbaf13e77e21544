import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVICE_ENTRY } from '../support/service-process.js';
import { tempDir } from '../support/config.js';

/**
 * A process whose only work is the SQLite store (the migrate tool, the bench's seeding) must see
 * `close()` finish: the checkpoint worker is unref'd, and waiting for it must not leave the event
 * loop empty (Node would then end the process in the middle of the close, exit code 13).
 */
describe('SQLite store in a process with nothing else to do', () => {
  it('closes, checkpoint worker included, and the process goes on', () => {
    const openModule = pathToFileURL(join(SERVICE_ENTRY, '..', 'store', 'open.js')).href;
    const dir = tempDir('sqlite-close-');
    const script = `
      const { openStateStore } = await import(${JSON.stringify(openModule)});
      const store = openStateStore(${JSON.stringify(`sql:${join(dir, 'state.sqlite')}`)});
      await store.open();
      await store.mutateRun('r1', () => null);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await store.close();
      console.log('closed');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('closed');
    expect(child.status).toBe(0);
  });
});
