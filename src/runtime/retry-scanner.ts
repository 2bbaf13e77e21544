import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from './admission.js';

/**
 * Re-admits retrying runs whose backoff has passed, through the one admission path: the persisted
 * retry-recovery record is what lets the same run id be admitted again, under a new attempt.
 */
export async function admitDueRetries(deps: { store: StateStore; clock: Clock; admit: Admit; logger: Logger }): Promise<number> {
  const now = deps.clock.now().getTime();
  const { items } = await deps.store.listRuns({ status: 'retrying', includeInternal: true, limit: 200, order: 'oldest' });
  let admitted = 0;
  for (const run of items) {
    if (!run.retry || new Date(run.retry.nextRetryAt).getTime() > now) continue;
    const outcome = await deps.admit({
      type: run.type,
      payload: run.payload,
      source: 'retry',
      requestedBy: 'retry-recovery',
      forceRunId: run.runId,
      // The retry's admission joins the trace of the run's first admission.
      traceparent: run.traceparent,
    });
    if (outcome.kind === 'retry-admitted') admitted += 1;
  }
  if (admitted > 0) deps.logger.info({ admitted }, 'admitted due retries');
  return admitted;
}
