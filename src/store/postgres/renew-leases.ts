import type pg from 'pg';
import type { LeaseHeld } from '../types.js';

/**
 * Leases extended by one statement: the `lease_until` column and the record's
 * `claim.leaseUntil`, for the rows still running under the owner and attempt. The record is
 * changed in SQL (`jsonb_set`) instead of read into the service and written back, so a renewal
 * round of an instance holding 1,024 attempts is one statement, not 1,024 transactions. No event
 * is appended: `last_tx` and the change feed stay as they were.
 */
export async function renewLeases(pool: pg.Pool, ownerId: string, attempts: readonly LeaseHeld[], leaseUntil: string): Promise<string[]> {
  if (attempts.length === 0) return [];
  const { rows } = await pool.query<{ run_id: string }>({
    name: 'renew-leases',
    // Rows locked in run id order, as every multi-row lock of runs here takes them, so a renewal
    // and a batch that both hold some of the same runs never wait on each other in a cycle.
    text: `WITH held AS (
              SELECT r.run_id FROM runs AS r
                JOIN unnest($1::text[], $2::int[]) AS a(run_id, attempt) ON r.run_id = a.run_id AND r.attempt = a.attempt
               WHERE r.status = 'running' AND r.lease_owner = $4
               ORDER BY r.run_id
                 FOR UPDATE OF r
            )
            UPDATE runs AS r
               SET lease_until = $3::text::timestamptz, doc = jsonb_set(r.doc, '{claim,leaseUntil}', to_jsonb($3::text))
              FROM held
             WHERE r.run_id = held.run_id
            RETURNING r.run_id`,
    values: [attempts.map((held) => held.runId), attempts.map((held) => held.attempt), leaseUntil, ownerId],
  });
  return rows.map((row) => row.run_id);
}
