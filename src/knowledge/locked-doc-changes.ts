/**
 * The doc-change buffer as the repair loop uses it across processes: appends taken under the
 * buffer lock, so concurrent doc-change runs in any process lose no path, and queued in this
 * process first, so they contend for the shared lock only with other processes. The queue is
 * this role's own state (one per loop); reads and drains go to the buffer file as they are.
 */

import type { Clock } from '../clock.js';
import { appendDocChanges, drainDocChanges, readDocChangeBuffer, type DocChangeBuffer } from './doc-change-buffer.js';
import { BUFFER_LOCK, type WithRepairLock } from './repair-locks.js';

export interface LockedDocChanges {
  /** The buffer after adding `paths`; null when the buffer lock was not obtained (nothing recorded). */
  append(paths: string[]): Promise<DocChangeBuffer | null>;
  read(): Promise<DocChangeBuffer>;
  /** Removes the paths a repair took over. */
  drain(paths: string[], now: Date): Promise<DocChangeBuffer>;
}

export function lockedDocChanges(deps: { logsDir: string; clock: Clock; withLock: WithRepairLock }): LockedDocChanges {
  const bufferConfig = { logsDir: deps.logsDir };
  let chain: Promise<unknown> = Promise.resolve();
  return {
    append(paths) {
      const next = chain.then(() => deps.withLock(BUFFER_LOCK, 500, () => appendDocChanges(bufferConfig, paths, deps.clock.now())));
      chain = next.catch(() => undefined);
      return next;
    },
    read: () => readDocChangeBuffer(bufferConfig),
    drain: (paths, now) => drainDocChanges(bufferConfig, paths, now),
  };
}
