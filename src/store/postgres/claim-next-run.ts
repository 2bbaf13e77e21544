import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { noteCandidateReads, pickFairly, type QueueCandidate } from '../fair-claims.js';
import { claimGate, isLimited, withBucketHolds, rateLookbackMs, runningByTypeOf, foldQueueGroups, type QueueGroup, type RunGroupCount, type RunStart } from '../limit-buckets.js';
import { blockedTypes, storedRun } from '../run-rules.js';
import type { ClaimOptions } from '../types.js';
import { frozenRun, stampedIn, TX_ID, type StampedRun } from './save-run.js';
import { updateRuns } from './save-runs.js';
import { withTransaction, type Queryable } from './transaction.js';

/** Claims that enforce per-type limits or buckets take this transaction lock, so two never both see a free slot. */
const LIMITS_LOCK = 'orchestrator-claim-type-limits';

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
 * concurrency key, priority and type, that are due) and each key's last claim are read without locks; the shared
 * order picks among them; the picks are locked by `FOR UPDATE SKIP LOCKED` and marked running
 * by one multi-row UPDATE. A pick another instance is claiming is skipped, never waited on or
 * taken twice, and the next round picks again without it.
 *
 * Per-type limits and limit buckets hold across instances: while a claim counts running runs
 * and recent starts it holds a transaction-scoped advisory lock, so no other limited claim counts
 * until this one commits. Types at their limit are left out of the candidates; a candidate a
 * limit holds back is passed over (it stays ready, holding no slot), and the next round fills the
 * rest with other runs.
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
    const limited = isLimited(options);
    if (limited) await client.query({ name: 'claim-type-lock', text: 'SELECT pg_advisory_xact_lock(hashtext($1))', values: [LIMITS_LOCK] });
    // Counted under the lock: no other limited claim commits a start between this count and this commit.
    const usage = limited ? await limitUsage(client, options, nowMs) : { running: [], started: [] };
    const picked: RunRecord[] = [];
    const passed = new Set<string>();
    const held = new Map<string, string[]>();
    // Keys claimed earlier in this transaction: behind every key not yet claimed, as stored claims would put them.
    const claimedNow = new Map<string, string>();
    let tx = 0;
    for (let round = 0; round < MAX_ROUNDS && picked.length < max; round++) {
      const perGroup = max - picked.length + CONTENTION_SLACK;
      const blocked = blockedTypes(options, runningByTypeOf(usage.running));
      const candidates = await readyCandidates(client, blocked, [...passed], perGroup, nowMs);
      if (candidates.length === 0) break;
      const lastClaimed = await lastClaims(client, candidates, claimedNow);
      const gate = claimGate(options, usage, nowMs);
      const order = pickFairly(candidates, lastClaimed, nowMs, candidates.length, (candidate) => {
        if (gate.admit(candidate)) return true;
        // Held by a limit for the rest of this claim: not read again.
        passed.add(candidate.runId);
        return false;
      });
      for (const [runId, buckets] of gate.held) held.set(runId, buckets);
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
          usage.running.push({ type: candidate.type, key: candidate.key, n: 1 });
          usage.started.push({ type: candidate.type, key: candidate.key, atMs: nowMs });
          claimedNow.set(candidate.key, new Date(nowMs).toISOString());
        }
      }
      // Another round only when something may be left: a limit held a run back, another
      // instance took a pick, or a group had more runs than were read.
      if (!short && !anyGroupFull(candidates, perGroup)) break;
    }
    if (held.size > 0) await noteBucketHolds(client, held);
    if (picked.length === 0) return [];
    const next = picked.map((current) => stampedIn(current, storedRun(current.runId, current, mutate(current), () => current.seq), tx));
    return updateRuns(client, next, picked);
  });
}

/**
 * Notes on each run a bucket held back that it did (RunRecord.bucketHolds), once per bucket and
 * attempt. A run another transaction has locked is skipped: it is being claimed or changed.
 */
async function noteBucketHolds(client: Queryable, held: ReadonlyMap<string, string[]>): Promise<void> {
  const { rows } = await client.query<{ doc: string }>({
    name: 'claim-held-lock',
    text: `SELECT doc::text AS doc FROM runs WHERE run_id = ANY($1::text[]) AND queue_state = 'ready' FOR UPDATE SKIP LOCKED`,
    values: [[...held.keys()]],
  });
  const befores: RunRecord[] = [];
  const nexts: StampedRun[] = [];
  for (const row of rows) {
    const current = frozenRun(row.doc);
    const next = withBucketHolds(current, held.get(current.runId) ?? []);
    if (next === null) continue;
    befores.push(current);
    // No event is appended: nothing to stamp.
    nexts.push(stampedIn(current, storedRun(current.runId, current, next, () => current.seq), 0));
  }
  if (nexts.length > 0) await updateRuns(client, nexts, befores);
}

/**
 * The oldest `perGroup` ready runs of each (concurrency key, priority, type) group, leaving out
 * blocked types and the runs named in `passed`, and the runs not yet due. Only the head of a group
 * can be next, so this is every run a claim of `perGroup` runs could take.
 *
 * Bounded (docs/queue.md): a recursive query skips along `runs_ready_heads` from one group to the
 * next (one index probe per group), and reads at most `perGroup` rows of each group that is not
 * blocked, so 10,000 ready runs of one key cost what `perGroup` do. Runs with a not-before time
 * are outside that index; `runs_ready_not_before` gives the due ones alone.
 */
async function readyCandidates(db: Queryable, blocked: ReadonlySet<string>, passed: string[], perGroup: number, nowMs: number): Promise<QueueCandidate[]> {
  const { rows } = await db.query<CandidateRow>({
    name: 'claim-candidates',
    text: CANDIDATES_SQL,
    values: [[...blocked], passed, perGroup, new Date(nowMs).toISOString()],
  });
  noteCandidateReads(rows.length);
  return rows.map((row) => ({
    runId: row.run_id,
    seq: Number(row.seq),
    type: row.type,
    key: row.concurrency_key,
    priority: row.priority,
    createdAt: row.aging_from,
  }));
}

interface CandidateRow {
  run_id: string;
  seq: string;
  type: string;
  concurrency_key: string;
  priority: number;
  aging_from: string;
}

/** $1 blocked types, $2 passed run ids, $3 runs per group, $4 now (ISO). */
export const CANDIDATES_SQL = `WITH RECURSIVE heads AS (
    (SELECT concurrency_key AS k, priority AS p, type AS t FROM runs
      WHERE queue_state = 'ready' AND not_before IS NULL
      ORDER BY concurrency_key, priority, type LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.p, nxt.t FROM heads, LATERAL (
      SELECT concurrency_key AS k, priority AS p, type AS t FROM runs
      WHERE queue_state = 'ready' AND not_before IS NULL AND (concurrency_key, priority, type) > (heads.k, heads.p, heads.t)
      ORDER BY concurrency_key, priority, type LIMIT 1) AS nxt
  )
  SELECT run.* FROM heads, LATERAL (
    SELECT run_id, seq, type, concurrency_key, priority, created_at AS aging_from FROM runs
    WHERE queue_state = 'ready' AND not_before IS NULL AND concurrency_key = heads.k AND priority = heads.p AND type = heads.t
      AND NOT (heads.t = ANY($1::text[])) AND NOT (run_id = ANY($2::text[]))
    ORDER BY seq LIMIT $3) AS run
  UNION ALL
  SELECT run_id, seq, type, concurrency_key, priority, aging_from FROM (
    SELECT run_id, seq, type, concurrency_key, priority, GREATEST(created_at COLLATE "C", not_before) AS aging_from,
           row_number() OVER (PARTITION BY concurrency_key, priority, type ORDER BY seq) AS rank
    FROM runs
    WHERE queue_state = 'ready' AND not_before IS NOT NULL AND not_before <= $4
      AND NOT (type = ANY($1::text[])) AND NOT (run_id = ANY($2::text[]))
  ) AS due
  WHERE rank <= $3`;

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

/** Whether some (key, priority, type) group gave as many candidates as were asked: it may hold more. */
function anyGroupFull(candidates: readonly QueueCandidate[], perGroup: number): boolean {
  const sizes = new Map<string, number>();
  for (const candidate of candidates) {
    const group = `${candidate.priority}:${candidate.type}:${candidate.key}`;
    const size = (sizes.get(group) ?? 0) + 1;
    if (size >= perGroup) return true;
    sizes.set(group, size);
  }
  return false;
}

/**
 * What the limits count, read under the limits lock: running runs by (type, key) (only of the
 * limited types when no bucket is configured), and the starts inside the longest rate window.
 */
export async function limitUsage(db: Queryable, options: ClaimOptions, nowMs: number): Promise<{ running: RunGroupCount[]; started: RunStart[] }> {
  const everyType = (options.buckets?.length ?? 0) > 0;
  const { rows } = await db.query<{ type: string; key: string; n: string }>({
    name: 'claim-running-groups',
    text: `SELECT type, concurrency_key AS key, COUNT(*) AS n FROM runs
           WHERE status = 'running' AND ($1::boolean OR type = ANY($2::text[])) GROUP BY type, concurrency_key`,
    values: [everyType, Object.keys(options.typeLimits)],
  });
  const running = rows.map((row) => ({ type: row.type, key: row.key, n: Number(row.n) }));
  const lookbackMs = rateLookbackMs(options.buckets ?? []);
  if (lookbackMs === 0) return { running, started: [] };
  const since = await db.query<{ type: string; key: string; started_at: string }>({
    name: 'claim-recent-starts',
    text: 'SELECT type, concurrency_key AS key, started_at FROM runs WHERE started_at >= $1',
    values: [new Date(nowMs - lookbackMs).toISOString()],
  });
  return { running, started: since.rows.map((row) => ({ type: row.type, key: row.key, atMs: Date.parse(row.started_at) })) };
}

/** Ready and running runs by (type, key) with the oldest ready admission of each, ready runs by priority too, in one read of those rows. */
export async function queueGroups(db: Queryable, now: Date): Promise<QueueGroup[]> {
  const { rows } = await db.query<{ type: string; key: string; priority: number; ready: string; running: string; oldest: string | null; not_before: string }>({
    name: 'queue-groups-by-priority',
    text: `SELECT type, concurrency_key AS key, priority,
                  COUNT(*) FILTER (WHERE queue_state = 'ready') AS ready,
                  COUNT(*) FILTER (WHERE status = 'running') AS running,
                  MIN(created_at COLLATE "C") FILTER (WHERE queue_state = 'ready') AS oldest,
                  COUNT(*) FILTER (WHERE queue_state = 'ready' AND not_before > $1) AS not_before
           FROM runs WHERE queue_state = 'ready' OR status = 'running' GROUP BY type, concurrency_key, priority`,
    values: [now.toISOString()],
  });
  return foldQueueGroups(
    rows.map((row) => ({
      type: row.type,
      key: row.key,
      priority: Number(row.priority),
      ready: Number(row.ready),
      running: Number(row.running),
      oldestReadyAt: row.oldest,
      notBefore: Number(row.not_before),
    })),
  );
}
