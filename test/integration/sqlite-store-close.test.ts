import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVICE_ENTRY } from '../support/service-process.js';
import { tempDir } from '../support/config.js';

/**
 * A process whose only work is the SQLite store (the migrate tool, the bench's seeding) must see
 * `close()` finish: the checkpoint and writer threads are unref'd, and waiting for them must not
 * leave the event loop empty (Node would then end the process in the middle of the close, exit
 * code 13). The script runs as `--input-type=module`, which the threads' eval'd source inherits:
 * both must start there too (the writer carries the write; the checkpointer must have checkpointed).
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
      await store.putDoc('c', 'd', { n: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const stats = store.checkpointStats();
      await store.close();
      console.log(JSON.stringify(stats));
      console.log('closed');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    const [stats, closed] = child.stdout.trim().split('\n');
    expect(closed).toBe('closed');
    expect(JSON.parse(stats!)).toMatchObject({ lastError: null });
    expect(JSON.parse(stats!).completed).toBeGreaterThan(0);
    expect(child.status).toBe(0);
  });
});
