/**
 * The repair loop's two coordination locks and how it holds them: the doc-change buffer lock
 * (every process's read-modify-write of the buffer file) and the doc-repair lock (every decision
 * and write of the repair-loop state). A caller tries a bounded number of times with a short
 * random pause and learns `null` when the lock stayed held, so it can answer instead of waiting.
 */

import type { Coordination } from '../coordination/types.js';

export const DOC_REPAIR_LOCK = 'knowledge:doc-repair';
export const BUFFER_LOCK = 'knowledge:doc-change-buffer';
const LOCK_TTL_MS = 30_000;

/** Runs `work` holding lock `name`, trying up to `attempts` times; null when it was never obtained. */
export type WithRepairLock = <T>(name: string, attempts: number, work: () => Promise<T>) => Promise<T | null>;

export function repairLocks(coordination: Coordination, ownerId: string): WithRepairLock {
  return async (name, attempts, work) => {
    for (let i = 0; i < attempts; i += 1) {
      if (await coordination.acquireLock(name, ownerId, LOCK_TTL_MS)) {
        try {
          return await work();
        } finally {
          await coordination.releaseLock(name, ownerId);
        }
      }
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20)));
    }
    return null;
  };
}
