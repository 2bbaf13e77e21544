import { randomUUID } from 'node:crypto';
import type { Coordination } from '../coordination/types.js';

const LEASE_MS = 15_000;
const WAIT_MS = 10_000;

/**
 * Runs `work` while holding a coordination lock, so read-modify-writes of one incident by several
 * instances (or concurrent requests in one) never lose a write. Each call holds its own token:
 * the memory driver treats a second acquire by the same owner as re-entry.
 */
export async function withCoordinationLock<T>(coordination: Coordination, name: string, work: () => Promise<T>): Promise<T> {
  const token = `incident-lock:${randomUUID()}`;
  const deadline = Date.now() + WAIT_MS;
  let delay = 5;
  while (!(await coordination.acquireLock(name, token, LEASE_MS))) {
    if (Date.now() > deadline) throw new Error(`lock ${name} stayed busy for ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
  try {
    return await work();
  } finally {
    await coordination.releaseLock(name, token).catch(() => undefined);
  }
}
