import { randomUUID } from 'node:crypto';
import type { Coordination } from '../coordination/types.js';
import { conflict } from '../domain/errors.js';

const LEASE_MS = 15_000;
const WAIT_MS = 10_000;

/**
 * Runs `work` while holding a coordination lock, so read-modify-writes of one incident by several
 * instances (or concurrent requests in one) never lose a write. Each call holds its own token:
 * the memory driver treats a second acquire by the same owner as re-entry.
 */
export async function withCoordinationLock<T>(
  coordination: Coordination,
  name: string,
  work: () => Promise<T>,
  /**
   * When set and the coordination store itself fails (throws, not "lock busy"), the work runs
   * without the lock after this is told why. Only for recording that very failure: an incident
   * about an unreachable coordination store could otherwise never be written.
   */
  onCoordinationDown?: (err: unknown) => void,
): Promise<T> {
  const token = `incident-lock:${randomUUID()}`;
  const deadline = Date.now() + WAIT_MS;
  let delay = 5;
  const acquire = async (): Promise<boolean | 'down'> => {
    try {
      return await coordination.acquireLock(name, token, LEASE_MS);
    } catch (err) {
      if (!onCoordinationDown) throw err;
      onCoordinationDown(err);
      return 'down';
    }
  };
  let acquired: boolean | 'down';
  while (!(acquired = await acquire())) {
    // Another writer holds the incident for longer than a write takes: answer 409, the caller may retry.
    if (Date.now() > deadline) throw conflict(`lock ${name} stayed busy for ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
  if (acquired === 'down') return work();
  try {
    return await work();
  } finally {
    await coordination.releaseLock(name, token).catch(() => undefined);
  }
}
