import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { pickFairly, type QueueCandidate } from '../fair-claims.js';
import { blockedTypes, storedRun, typeLimitGate } from '../run-rules.js';
import type { ClaimOptions } from '../types.js';
import { frozenRun, stampedIn, TX_ID } from './save-run.js';
import { updateRuns } from './save-runs.js';
import { withTransaction, type Queryable } from './transaction.js';

/** Claims that enforce per-type limits take this transaction lock, so two never both see a free slot. */
const TYPE_LIMIT_LOCK = 'orchestrator-claim-type-limits';

/**
 * Rounds of choosing and locking one claim makes at most. A round falls short when another
 * instance locked a chosen run first or a type filled up; the next round chooses among the
 * rest. Bounded so a claim racing many others still ends (the runner claims again later).
 */
const MAX_ROUNDS = 8;

/**
 * Candidates read per group beyond the slots wanted: instances claiming at once mostly want the
 * same heads, and a claim whose picks were all taken goes on down its list instead of coming
 * back empty (the runner would read that as an empty queue).
 */
const CONTENTION_SLACK = 8;

/**
 * Takes the first ready run in claim order (src/store/fair-claims.ts) for this caller. The
 * mutator marks the run running under this instance's lease (claim.ownerId, claim.leaseUntil,
 * lifted into lease columns); the run's attempt number is the fencing token every later write of
 * that attempt is checked against.
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
 * Up to `max` claims in one transaction. The candidates (the oldest `max` ready runs of each
 * concurrency key and priority) and each key's last claim are read without locks; the shared
 * order picks among them; the picks are locked by `FOR UPDATE SKIP LOCKED` and marked running
 * by one multi-row UPDATE. A pick another instance is claiming is skipped, never waited on or
 * taken twice, and the next round picks again without it.
 *
 * Per-type limits hold across instances: while a claim counts the running runs of limited types
 * it holds a transaction-scoped advisory lock, so no other claim counts until this one commits.
 * Types at their limit are left out of the candidates; a type with fewer free slots than were
 * picked takes only its free slots, and the next round fills the rest with other types.
 */
export async function claimRuns(
  pool: pg.Pool,
  options: ClaimOptions,
  max: number,
  mutate: (run: RunRecord) => RunRecord,
): Promise<RunRecord[]> {
  if (max < 1) return [];
  const nowMs = (options.now ?? new Date()).getTime();
  return withTransaction(pool, async (client) => {
    const limited = Object.keys(options.typeLimits);
    if (limited.length > 0) await client.query({ name: 'claim-type-lock', text: 'SELECT pg_advisory_xact_lock(hashtext($1))', values: [TYPE_LIMIT_LOCK] });
    const running = await runningByType(client, limited);
    const picked: RunRecord[] = [];
    const passed = new Set<string>();
    // Keys claimed earlier in this transaction: behind every key not yet claimed, as stored claims would put them.
    const claimedNow = new Map<string, string>();
    let tx = 0;
    for (let round = 0; round < MAX_ROUNDS && picked.length < max; round++) {
      const perGroup = max - picked.length + CONTENTION_SLACK;
      const candidates = await readyCandidates(client, blockedTypes(options, running), [...passed], perGroup);
      if (candidates.length === 0) break;
      const lastClaimed = await lastClaims(client, candidates, claimedNow);
      const gate = typeLimitGate(options, running);
      const order = pickFairly(candidates, lastClaimed, nowMs, candidates.length, gate.admit);
      let short = gate.refused;
      // Locked in claim order, as many at a time as slots are left: every row locked is taken.
      for (let from = 0; from < order.length && picked.length < max; ) {
        const slice = order.slice(from, from + max - picked.length);
        from += slice.length;
        const { rows } = await client.query<{ doc: string; tx: string }>({
          name: 'claim-lock',
          text: `SELECT doc::text AS doc, ${TX_ID} FROM runs WHERE run_id = ANY($1::text[]) AND queue_state = 'ready' FOR UPDATE SKIP LOCKED`,
          values: [slice.map((candidate) => candidate.runId)],
        });
        const locked = new Map<string, { run: RunRecord; id: number }>();
        for (const row of rows) {
          const run = frozenRun(row.doc);
          locked.set(run.runId, { run, id: Number(row.tx) });
        }
        for (const candidate of slice) {
          passed.add(candidate.runId);
          const hit = locked.get(candidate.runId);
          if (hit === undefined) {
            short = true;
            continue;
          }
          tx = hit.id;
          picked.push(hit.run);
          running.set(candidate.type, (running.get(candidate.type) ?? 0) + 1);
          claimedNow.set(candidate.key, new Date(nowMs).toISOString());
        }
      }
      // Another round only when something may be left: a type filled up, another instance took
      // a pick, or a group had more runs than were read.
      if (!short && !anyGroupFull(candidates, perGroup)) break;
    }
    if (picked.length === 0) return [];
    const next = picked.map((current) => stampedIn(current, storedRun(current.runId, current, mutate(current), () => current.seq), tx));
    return updateRuns(client, next, picked);
  });
}

/**
 * The oldest `perGroup` ready runs of each (concurrency key, priority), leaving out blocked
 * types and the runs named in `passed`. Only the head of a group can be next, so this is every
 * run a claim of `perGroup` runs could take.
 */
async function readyCandidates(db: Queryable, blocked: ReadonlySet<string>, passed: string[], perGroup: number): Promise<QueueCandidate[]> {
  const { rows } = await db.query<{ run_id: string; seq: string; type: string; concurrency_key: string; priority: number; created_at: string }>({
    name: 'claim-candidates',
    text: `SELECT run_id, seq, type, concurrency_key, priority, created_at FROM (
             SELECT run_id, seq, type, concurrency_key, priority, created_at,
                    row_number() OVER (PARTITION BY concurrency_key, priority ORDER BY seq) AS rank
             FROM runs
             WHERE queue_state = 'ready' AND NOT (type = ANY($1::text[])) AND NOT (run_id = ANY($2::text[]))
           ) AS queued
           WHERE rank <= $3`,
    values: [[...blocked], passed, perGroup],
  });
  return rows.map((row) => ({
    runId: row.run_id,
    seq: Number(row.seq),
    type: row.type,
    key: row.concurrency_key,
    priority: row.priority,
    createdAt: row.created_at,
  }));
}

/** When each candidate key's latest run started (one index lookup per key), with this transaction's own claims on top. */
async function lastClaims(db: Queryable, candidates: readonly QueueCandidate[], claimedNow: ReadonlyMap<string, string>): Promise<Map<string, string | null>> {
  const keys = [...new Set(candidates.map((candidate) => candidate.key))];
  const { rows } = await db.query<{ key: string; last: string | null }>({
    name: 'claim-last-by-key',
    text: `SELECT k AS key, (SELECT MAX(started_at) FROM runs WHERE concurrency_key = k) AS last FROM unnest($1::text[]) AS k`,
    values: [keys],
  });
  const last = new Map(rows.map((row) => [row.key, row.last]));
  for (const [key, at] of claimedNow) last.set(key, at);
  return last;
}

/** Whether some (key, priority) group gave as many candidates as were asked: it may hold more. */
function anyGroupFull(candidates: readonly QueueCandidate[], perGroup: number): boolean {
  const sizes = new Map<string, number>();
  for (const candidate of candidates) {
    const group = `${candidate.priority}:${candidate.key}`;
    const size = (sizes.get(group) ?? 0) + 1;
    if (size >= perGroup) return true;
    sizes.set(group, size);
  }
  return false;
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
