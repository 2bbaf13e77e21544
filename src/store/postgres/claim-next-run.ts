import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { blockedTypes, storedRun } from '../run-rules.js';
import type { ClaimOptions } from '../types.js';
import { frozenRun, stampedIn, TX_ID } from './save-run.js';
import { updateRuns } from './save-runs.js';
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

/**
 * Up to `max` claims in one transaction: the oldest ready runs locked by one
 * `SELECT … FOR UPDATE SKIP LOCKED LIMIT max` and marked running by one multi-row UPDATE.
 *
 * Per-type limits hold across instances: while a claim counts the running runs of limited types
 * it holds a transaction-scoped advisory lock, so no other claim counts until this one commits.
 * Types at their limit are left out of the select; a type with fewer free slots than the select
 * returned takes only its free slots (oldest first), and the rows left over are unlocked at
 * commit. When that left the batch short, the select runs again with those types now blocked,
 * so runs of other types behind them still fill the free slots.
 */
export async function claimRuns(
  pool: pg.Pool,
  options: ClaimOptions,
  max: number,
  mutate: (run: RunRecord) => RunRecord,
): Promise<RunRecord[]> {
  if (max < 1) return [];
  return withTransaction(pool, async (client) => {
    const limited = Object.keys(options.typeLimits);
    if (limited.length > 0) await client.query({ name: 'claim-type-lock', text: 'SELECT pg_advisory_xact_lock(hashtext($1))', values: [TYPE_LIMIT_LOCK] });
    const running = await runningByType(client, limited);
    const picked: RunRecord[] = [];
    let tx = 0;
    for (;;) {
      const blocked = blockedTypes(options, running);
      const taken = new Set(picked.map((run) => run.runId));
      const { rows } = await client.query<{ doc: string; tx: string }>({
        name: 'claim-select',
        text: `SELECT doc::text AS doc, ${TX_ID} FROM runs
         WHERE queue_state = 'ready' AND NOT (type = ANY($1::text[])) AND NOT (run_id = ANY($3::text[]))
         ORDER BY seq LIMIT $2
         FOR UPDATE SKIP LOCKED`,
        values: [[...blocked], max - picked.length, [...taken]],
      });
      let overLimit = false;
      for (const row of rows) {
        tx = Number(row.tx);
        const run = frozenRun(row.doc);
        const limit = options.typeLimits[run.type];
        const count = running.get(run.type) ?? 0;
        if (limit !== undefined && count >= limit) {
          overLimit = true;
          continue;
        }
        running.set(run.type, count + 1);
        picked.push(run);
      }
      if (!overLimit || picked.length >= max || rows.length === 0) break;
    }
    if (picked.length === 0) return [];
    const next = picked.map((current) => stampedIn(current, storedRun(current.runId, current, mutate(current), () => current.seq), tx));
    return updateRuns(client, next, picked);
  });
}

async function runningByType(db: Queryable, types: string[]): Promise<Map<string, number>> {
  if (types.length === 0) return new Map();
  const { rows } = await db.query<{ type: string; n: string }>({
    name: 'claim-running-by-type',
    text: `SELECT type, COUNT(*) AS n FROM runs WHERE status = 'running' AND type = ANY($1::text[]) GROUP BY type`,
    values: [types],
  });
  return new Map(rows.map((row) => [row.type, Number(row.n)]));
}
