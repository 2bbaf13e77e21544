import type { LeaseHeld, StateStore } from './types.js';

/**
 * renewLeases for a driver one process owns (file, SQLite): one mutateRun per attempt, each
 * renewed while its run still runs under that owner and attempt. Called with the store as `this`
 * seen by its caller, so a wrapper's mutateRun is the one used.
 */
export async function renewLeasesRunByRun(
  store: Pick<StateStore, 'mutateRun'>,
  ownerId: string,
  attempts: readonly LeaseHeld[],
  leaseUntil: string,
): Promise<string[]> {
  const renewed: string[] = [];
  for (const { runId, attempt } of attempts) {
    const written = await store.mutateRun(runId, (current) =>
      current?.status === 'running' && current.claim?.ownerId === ownerId && current.attempt === attempt ? { ...current, claim: { ownerId, leaseUntil } } : null,
    );
    if (written.changed) renewed.push(runId);
  }
  return renewed;
}
