import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir } from './config.js';

/**
 * For a test file: `openStore()` opens a fresh file store in a temp dir (several tests may open
 * more than one, or share one between instances); every store opened is closed after each test.
 */
export function fileStores(prefix: string): () => Promise<StateStore> {
  const open: StateStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  return async () => {
    const store = openStateStore(join(tempDir(prefix), 'state.json'));
    await store.open();
    open.push(store);
    return store;
  };
}
