import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { blockedTypes, storedRun } from '../run-rules.js';
import type { ClaimOptions } from '../types.js';
import { runFromRow, updateRun, withUnstampedEvents } from './save-run.js';
import { withTransaction, type Queryable } from './transaction.js';

/** Claims that enforce per-type limits take this transaction lock, so two never both see a free slot. */
const TYPE_LIMIT_LOCK = 'orchestrator-claim-type-limits';

/**
 * Takes the oldest ready run for this caller. `FOR UPDATE SKIP LOCKED` lets instances claim
 * side by side: a row another transaction is claiming is skipped, never waited on or taken
 * twice. The mutator marks the run running under this instance's lease (claim.ownerId,
 * claim.leaseUntil, lifted into lease columns); the run's attempt number is the fencing token
 * every later write of that attempt is checked against.
 */
export async function claimNextRun(
  pool: pg.Pool,
  options: ClaimOptions,
  mutate: (run: RunRecord) => RunRecord,
): Promise<RunRecord | null> {
  const [claimed] = await claimRuns(pool, options, 1, mutate);
  return claimed ?? null;
}

/** Up to `max` claims in one transaction; each sees the runs the ones before it marked running. */
export async function claimRuns(
  pool: pg.Pool,
  options: ClaimOptions,
  max: number,
  mutate: (run: RunRecord) => RunRecord,
): Promise<RunRecord[]> {
  return withTransaction(pool, async (client) => {
    const limited = Object.keys(options.typeLimits);
    if (limited.length > 0) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [TYPE_LIMIT_LOCK]);
    const claimed: RunRecord[] = [];
    while (claimed.length < max) {
      const blocked = blockedTypes(options, await runningByType(client, limited));
      const { rows } = await client.query<{ doc: RunRecord }>(
        `SELECT doc FROM runs
         WHERE queue_state = 'ready' AND NOT (type = ANY($1::text[]))
         ORDER BY seq LIMIT 1
         FOR UPDATE SKIP LOCKED`,
        [[...blocked]],
      );
      if (!rows[0]) break;
      const current = runFromRow(rows[0]);
      const next = storedRun(current.runId, current, mutate(structuredClone(current)), () => current.seq);
      claimed.push(await updateRun(client, withUnstampedEvents(current, next)));
    }
    return claimed;
  });
}

async function runningByType(db: Queryable, types: string[]): Promise<Map<string, number>> {
  if (types.length === 0) return new Map();
  const { rows } = await db.query<{ type: string; n: string }>(
    `SELECT type, COUNT(*) AS n FROM runs WHERE status = 'running' AND type = ANY($1::text[]) GROUP BY type`,
    [types],
  );
  return new Map(rows.map((row) => [row.type, Number(row.n)]));
}
