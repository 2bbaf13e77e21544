import type Database from 'better-sqlite3';
import { placementOf, type RunRecord } from '../../domain/run-record.js';
import type { ApprovalSettlement } from '../../domain/approval-refusal.js';
import { agingFrom, fairnessKey, isDue, noteCandidateReads, pickFairly, type QueueCandidate } from '../fair-claims.js';
import { claimGate, isLimited, withBucketHolds, rateLookbackMs, runningByTypeOf, foldQueueGroups, type QueueGroupRow, type QueueGroup, type RunGroupCount, type RunStart } from '../limit-buckets.js';
import { VERDICT_FIELDS } from '../run-field-filters.js';
import { runProblem } from '../record-checks.js';
import {
  PRUNABLE_STATUSES,
  addToRunCounts,
  settlementSql,
  blockedTypes,
  emptyRunCounts,
  normalizeRunQuery,
  RUN_COLUMN_FILTERS,
  storedRun,
  type NormalizedRunQuery,
} from '../run-rules.js';
import { stateCorrupt, type CancelRequest, type ClaimOptions, type MutateResult, type RunCounts, type RunMutator, type RunQuery } from '../types.js';
import { deepFreeze } from '../deep-freeze.js';
import { lastEventTx, stampNewEvents } from '../run-event-stamps.js';
import { EVENT_TX_COUNTER } from './schema.js';
import { statement } from './statements.js';
import type { ChangeCount, WriteContext } from './write-context.js';

/**
 * Run operations on the `runs` table. Functions that write take the write's context: they read
 * the committed rows plus what the batch staged, and add their statements to the batch, which
 * the writer thread commits in one transaction (see TransactionBatcher).
 */

interface DocRow {
  doc: string;
}

export function getRun(db: Database.Database, runId: string): RunRecord | null {
  const row = statement(db, 'SELECT doc FROM runs WHERE run_id = ?').get(runId) as DocRow | undefined;
  return row === undefined ? null : (JSON.parse(row.doc) as RunRecord);
}

/** Running runs among `runIds` with a cancel requested, read from the record's few fields alone. */
export function cancelRequests(db: Database.Database, runIds: readonly string[]): CancelRequest[] {
  const read = statement(
    db,
    `SELECT run_id, json_extract(doc, '$.attempt') AS attempt, json_extract(doc, '$.claim.ownerId') AS owner
       FROM runs WHERE run_id = ? AND status = 'running' AND json_type(doc, '$.cancellation') = 'object'`,
  );
  return runIds.flatMap((runId) => {
    const row = read.get(runId) as { run_id: string; attempt: number | null; owner: string | null } | undefined;
    return row === undefined ? [] : [{ runId: row.run_id, attempt: row.attempt ?? 1, ownerId: row.owner }];
  });
}

export function mutateRun(ctx: WriteContext, runId: string, mutate: RunMutator): MutateResult {
  // Parsed for this call and held by nothing else, so the mutator gets it deep-frozen instead of
  // a copy (a structured clone per transition), as the file store hands out its stored record.
  const before = deepFreeze(currentRun(ctx, runId));
  const next = mutate(before);
  if (next === null) return { before, after: before, changed: false };
  const after = saveRun(ctx, runToStore(ctx, runId, before, next), before);
  return { before, after, changed: true };
}

/**
 * Rounds of choosing one claim makes at most: a round falls short only when a type filled up,
 * and the next then chooses among the candidates of the other types.
 */
const MAX_CLAIM_ROUNDS = 4;

/**
 * Up to `max` claims in claim order (src/store/fair-claims.ts), each counting the claims before
 * it against the type limits. The candidates and running counts take the runs staged earlier in
 * the batch into account (their staged version over the committed row), so two claims of one
 * batch can never both see a free slot or the same run; another process never writes (pid lock).
 */
export function claimRuns(ctx: WriteContext, options: ClaimOptions, max: number, mutate: (run: RunRecord) => RunRecord): RunRecord[] {
  const claimed: RunRecord[] = [];
  if (max <= 0) return claimed;
  const nowMs = (options.now ?? new Date()).getTime();
  const usage = isLimited(options) ? limitUsage(ctx, options, nowMs) : { running: [], started: [] };
  const passed = new Set<string>();
  const claimedNow = new Map<string, string>();
  for (let round = 0; round < MAX_CLAIM_ROUNDS && claimed.length < max; round++) {
    const want = max - claimed.length;
    const candidates = readyCandidates(ctx, blockedTypes(options, runningByTypeOf(usage.running)), passed, want, nowMs);
    if (candidates.length === 0) break;
    const gate = claimGate(options, usage, nowMs);
    const chosen = pickFairly(candidates, lastClaims(ctx, candidates, claimedNow), nowMs, want, (candidate) => {
      if (gate.admit(candidate)) return true;
      passed.add(candidate.runId);
      return false;
    });
    for (const [runId, buckets] of gate.held) noteBucketHolds(ctx, runId, buckets);
    for (const candidate of chosen) {
      passed.add(candidate.runId);
      const current = deepFreeze(currentRun(ctx, candidate.runId));
      if (current === null || current.queueState !== 'ready') continue;
      const run = saveRun(ctx, runToStore(ctx, current.runId, current, mutate(current)), current);
      claimed.push(run);
      claimedNow.set(candidate.key, new Date(nowMs).toISOString());
      usage.running.push({ type: candidate.type, key: candidate.key, n: 1 });
      usage.started.push({ type: candidate.type, key: candidate.key, atMs: nowMs });
    }
    if (!gate.refused) break;
  }
  return claimed;
}

/** Notes on a run a bucket held back that it did (RunRecord.bucketHolds), once per bucket and attempt. */
function noteBucketHolds(ctx: WriteContext, runId: string, buckets: readonly string[]): void {
  const current = deepFreeze(currentRun(ctx, runId));
  const next = current === null ? null : withBucketHolds(current, buckets);
  if (next !== null) saveRun(ctx, runToStore(ctx, runId, current, next), current);
}

/**
 * The oldest `perGroup` ready runs of each (concurrency key, priority, type) group as this write
 * sees them: committed rows the batch did not change, plus the batch's staged ready runs; blocked
 * types, runs in `passed` and runs not yet due left out. Committed rows are read before the
 * batch's versions replace them, so each group reads as many more rows as the batch staged.
 *
 * Bounded (docs/queue.md): the heads index (`runs_ready_heads`) is walked in group order a page
 * at a time, each page starting past the last group read, and no group gives more than its
 * share, so a group of 10,000 ready runs costs what `perGroup` do. Runs with a not-before time
 * are outside that index; `runs_ready_not_before` gives the due ones alone.
 */
function readyCandidates(ctx: WriteContext, blocked: ReadonlySet<string>, passed: ReadonlySet<string>, perGroup: number, nowMs: number): QueueCandidate[] {
  const share = perGroup + passed.size + ctx.stagedCount;
  const rows: QueueCandidate[] = [];
  const first = statement(ctx.db, `${HEADS_SELECT} ORDER BY concurrency_key, priority, type, seq LIMIT ?`);
  const after = statement(ctx.db, AFTER_GROUP_SELECT);
  const more = statement(ctx.db, `${HEADS_SELECT} AND concurrency_key = ? AND priority = ? AND type = ? AND seq > ? ORDER BY seq LIMIT ?`);
  let page = first.all(share) as QueueCandidate[];
  while (page.length > 0) {
    let taken = 0;
    let group: QueueCandidate | undefined;
    for (const row of page) {
      if (group === undefined || row.key !== group.key || row.priority !== group.priority || row.type !== group.type) [group, taken] = [row, 0];
      if (++taken <= share && !blocked.has(row.type)) rows.push(row);
    }
    noteCandidateReads(page.length);
    const tail = page[page.length - 1]!;
    if (page.length < share) break;
    // The page ended inside its last group: the rest of that group's share, unless it is blocked.
    if (taken < share && !blocked.has(tail.type)) {
      const rest = more.all(tail.key, tail.priority, tail.type, tail.seq, share - taken) as QueueCandidate[];
      noteCandidateReads(rest.length);
      rows.push(...rest);
    }
    page = after.all(tail.key, tail.priority, tail.type, PAST_EVERY_SEQ, share) as QueueCandidate[];
  }
  const due = statement(ctx.db, DUE_SELECT).all(new Date(nowMs).toISOString(), JSON.stringify([...blocked]), share) as QueueCandidate[];
  noteCandidateReads(due.length);
  rows.push(...due);
  const candidates = rows.filter((row) => !passed.has(row.runId) && ctx.stagedDoc(row.runId) === undefined);
  for (const [runId, { run }] of ctx.stagedRuns()) {
    if (run.queueState !== 'ready' || blocked.has(run.type) || passed.has(runId) || !isDue(run, nowMs)) continue;
    candidates.push({ runId, seq: run.seq, type: run.type, key: fairnessKey(run), priority: placementOf(run).priority, createdAt: agingFrom(run) });
  }
  return candidates;
}

/**
 * Ready runs with a not-before time that are due (the instant, the blocked types as a JSON
 * array, the share per group), as candidates. INDEXED BY: without statistics (the store never
 * runs ANALYZE) the planner took `runs_claim` and read every ready run to find the few with a
 * not-before time, on every claim; with 5,000 runs queued that was three quarters of the
 * service's main thread under admission load.
 */
export const DUE_SELECT = `SELECT runId, seq, type, key, priority, createdAt FROM (
    SELECT run_id AS runId, seq, type, concurrency_key AS key, priority, max(created_at, not_before) AS createdAt,
           row_number() OVER (PARTITION BY concurrency_key, priority, type ORDER BY seq) AS rank
    FROM runs INDEXED BY runs_ready_not_before
    WHERE queue_state = 'ready' AND not_before IS NOT NULL AND not_before <= ? AND type NOT IN (SELECT value FROM json_each(?))
  ) WHERE rank <= ?`;

/** Ready runs without a not-before time, as candidates, from `runs_ready_heads`. */
const HEADS_SELECT = `SELECT run_id AS runId, seq, type, concurrency_key AS key, priority, created_at AS createdAt
  FROM runs INDEXED BY runs_ready_heads WHERE queue_state = 'ready' AND not_before IS NULL`;

/** A seq past every run's: (group, PAST_EVERY_SEQ) sorts after each run of the group. */
const PAST_EVERY_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * The heads of the groups past one (its concurrency key, priority and type, then PAST_EVERY_SEQ,
 * and the page size). The row value names all four columns of `runs_ready_heads`, so SQLite seeks
 * straight past the group: compared on the first three alone it stepped through every ready run
 * of that group, 1-2 ms a claim with 5,000 runs queued in one group.
 */
export const AFTER_GROUP_SELECT = `${HEADS_SELECT} AND (concurrency_key, priority, type, seq) > (?, ?, ?, ?) ORDER BY concurrency_key, priority, type, seq LIMIT ?`;

/** When each candidate key's latest run started (committed, staged, or claimed by this write). */
function lastClaims(ctx: WriteContext, candidates: readonly QueueCandidate[], claimedNow: ReadonlyMap<string, string>): Map<string, string | null> {
  const read = statement(ctx.db, 'SELECT MAX(started_at) AS last FROM runs WHERE concurrency_key = ?');
  const last = new Map<string, string | null>();
  for (const { key } of candidates) {
    if (!last.has(key)) last.set(key, (read.get(key) as { last: string | null }).last);
  }
  for (const [, { run }] of ctx.stagedRuns()) {
    const key = fairnessKey(run);
    const before = last.get(key);
    if (run.startedAt !== null && before !== undefined && (before === null || run.startedAt > before)) last.set(key, run.startedAt);
  }
  for (const [key, at] of claimedNow) last.set(key, at);
  return last;
}

export function listRuns(db: Database.Database, query: RunQuery): { items: RunRecord[]; total: number } {
  const q = normalizeRunQuery(query);
  const { where, params } = runFilter(q);
  const order = q.order === 'newest' ? 'DESC' : 'ASC';
  const cursorClause = q.afterSeq === undefined ? '' : `${where === '' ? 'WHERE' : ' AND'} seq ${q.order === 'newest' ? '<' : '>'} ?`;
  const cursorParams = q.afterSeq === undefined ? [] : [q.afterSeq];
  const rows = statement(db, `SELECT doc FROM runs ${where}${cursorClause} ORDER BY seq ${order} LIMIT ? OFFSET ?`).all(
    ...params,
    ...cursorParams,
    q.limit,
    q.offset,
  ) as DocRow[];
  const { n } = statement(db, `SELECT COUNT(*) AS n FROM runs ${where}`).get(...params) as { n: number };
  return { items: rows.map((row) => JSON.parse(row.doc) as RunRecord), total: n };
}

/** A run row's approval settlement: its JSON document's fields through json_extract. */
const SETTLEMENT = settlementSql((path) => `json_extract(doc, '$.${path.join('.')}')`);

export function countRuns(db: Database.Database, includeInternal: boolean): RunCounts {
  const rows = statement(
    db,
    `SELECT type, status, queue_state AS queueState, ${SETTLEMENT} AS settlement, COUNT(*) AS n FROM runs
     ${includeInternal ? '' : 'WHERE internal = 0'}
     GROUP BY type, status, queue_state, settlement`,
  ).all() as Array<Pick<RunRecord, 'type' | 'status' | 'queueState'> & { settlement: ApprovalSettlement | null; n: number }>;
  const counts = emptyRunCounts();
  for (const row of rows) addToRunCounts(counts, row, row.n, row.settlement);
  return counts;
}

/**
 * Deletes the oldest finished runs so that at most `keep` runs remain (unfinished ones always
 * stay). Runs alone in its batch (the store marks it exclusive), so the count read here is the
 * committed one and no write of the same batch can bring back a run it deletes.
 */
export function pruneRuns(ctx: WriteContext, keep: number): ChangeCount | number {
  const { n } = statement(ctx.db, 'SELECT COUNT(*) AS n FROM runs').get() as { n: number };
  const excess = n - keep;
  if (excess <= 0) return 0;
  return ctx.runCounted(
    `DELETE FROM runs WHERE run_id IN (
       SELECT run_id FROM runs WHERE status IN (SELECT value FROM json_each(?)) ORDER BY seq LIMIT ?
     )`,
    [JSON.stringify(PRUNABLE_STATUSES), excess],
  );
}

export function countAllRuns(db: Database.Database): number {
  return (statement(db, 'SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
}

/** The run as this write sees it: staged earlier in the batch, else as committed. */
function currentRun(ctx: WriteContext, runId: string): RunRecord | null {
  const staged = ctx.stagedDoc(runId);
  return staged !== undefined ? (JSON.parse(staged) as RunRecord) : getRun(ctx.db, runId);
}

/** The record a write stores: `seq` as the store owns it, the events it appends stamped with the batch's next write stamp. */
function runToStore(ctx: WriteContext, runId: string, current: RunRecord | null, next: RunRecord): RunRecord {
  return stampNewEvents(current, storedRun(runId, current, next, () => ctx.nextSeq()), () => ctx.nextTx());
}

/** Stores a run (insert or full replace; `seq` never changes on update) and returns it as stored. */
function saveRun(ctx: WriteContext, run: RunRecord, current: RunRecord | null): RunRecord {
  const doc = JSON.stringify(run);
  const stored = JSON.parse(doc) as RunRecord;
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw stateCorrupt(`refusing to store run ${run.runId}: ${problem}`);
  ctx.run(
    `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, created_at, updated_at, last_tx, doc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET
       type = excluded.type, status = excluded.status, queue_state = excluded.queue_state,
       internal = excluded.internal, created_at = excluded.created_at, updated_at = excluded.updated_at,
       last_tx = excluded.last_tx, doc = excluded.doc`,
    [
      stored.runId,
      stored.seq,
      stored.type,
      stored.status,
      stored.queueState,
      stored.internal ? 1 : 0,
      stored.createdAt ?? null,
      stored.updatedAt ?? null,
      lastEventTx(stored),
      doc,
    ],
  );
  ctx.stageRun(stored, doc, current);
  return stored;
}

/** The run counter as committed, read once when the store opens (the store then keeps it). */
export function committedRunSeq(db: Database.Database): number {
  return (statement(db, "SELECT value FROM counters WHERE name = 'run_seq'").get() as { value: number }).value;
}

/** The run events' write stamp as committed, read once when the store opens. */
export function committedEventTx(db: Database.Database): number {
  return (statement(db, `SELECT value FROM counters WHERE name = '${EVENT_TX_COUNTER}'`).get() as { value: number }).value;
}

/** What the limits count as committed (src/store/limit-buckets.ts): running runs by (type, key), starts inside the longest rate window. */
export function committedLimitUsage(db: Database.Database, options: ClaimOptions, nowMs: number): { running: RunGroupCount[]; started: Array<RunStart & { runId: string }> } {
  const running = statement(
    db,
    "SELECT type, concurrency_key AS key, COUNT(*) AS n FROM runs WHERE status = 'running' GROUP BY type, concurrency_key",
  ).all() as RunGroupCount[];
  const lookbackMs = rateLookbackMs(options.buckets ?? []);
  if (lookbackMs === 0) return { running, started: [] };
  const rows = statement(db, 'SELECT run_id AS runId, type, concurrency_key AS key, started_at AS startedAt FROM runs WHERE started_at >= ?').all(
    new Date(nowMs - lookbackMs).toISOString(),
  ) as Array<{ runId: string; type: string; key: string; startedAt: string }>;
  return { running, started: rows.map((row) => ({ runId: row.runId, type: row.type, key: row.key, atMs: Date.parse(row.startedAt) })) };
}

/** The committed usage corrected by the runs staged earlier in the batch (a staged run's start over its committed row's). */
function limitUsage(ctx: WriteContext, options: ClaimOptions, nowMs: number): { running: RunGroupCount[]; started: RunStart[] } {
  const committed = committedLimitUsage(ctx.db, options, nowMs);
  const running = [...committed.running];
  const started: RunStart[] = committed.started.filter((start) => ctx.stagedDoc(start.runId) === undefined);
  const lookbackMs = rateLookbackMs(options.buckets ?? []);
  for (const [, staged] of ctx.stagedRuns()) {
    if (staged.run.status === 'running') running.push({ type: staged.run.type, key: fairnessKey(staged.run), n: 1 });
    if (staged.base?.status === 'running') running.push({ type: staged.base.type, key: fairnessKey(staged.base), n: -1 });
    const atMs = staged.run.startedAt === null ? Number.NaN : Date.parse(staged.run.startedAt);
    if (lookbackMs > 0 && atMs >= nowMs - lookbackMs) {
      started.push({ type: staged.run.type, key: fairnessKey(staged.run), atMs });
    }
  }
  return { running, started };
}

/**
 * A payload field equal to a filter value, by the field's JSON type (run-field-filters.ts): text
 * as text, a number as a number, a boolean by its name (json_type says `true` or `false`).
 * Parameters: path, path, text, path, number, path, number, boolean, boolean.
 */
const SCALAR_EQUALS = `(CASE json_type(doc, ?)
  WHEN 'text' THEN json_extract(doc, ?) = ?
  WHEN 'integer' THEN json_extract(doc, ?) = ?
  WHEN 'real' THEN json_extract(doc, ?) = ?
  WHEN 'true' THEN ? = 'true'
  WHEN 'false' THEN ? = 'false'
  ELSE 0 END)`;

/** A JSON path with every segment quoted; segments are plain names (PAYLOAD_FIELD_PATTERN), never holding a quote. */
function jsonPath(segments: string[]): string {
  return `$${segments.map((segment) => `."${segment}"`).join('')}`;
}

function runFilter(q: NormalizedRunQuery): { where: string; params: Array<string | number | null> } {
  const clauses: string[] = [];
  const params: Array<string | number | null> = [];
  if (!q.includeInternal) clauses.push('internal = 0');
  // created_at holds the toISOString spelling, as do the bounds: SQLite's text order (BINARY) is time order.
  for (const { field, column, operator } of RUN_COLUMN_FILTERS) {
    const value = q[field];
    if (value === undefined) continue;
    clauses.push(`${column} ${operator} ?`);
    params.push(value);
  }
  for (const tag of q.tags) {
    // Each wanted tag among the run's: read from the rows the other filters keep (no index, as
    // the payload filters; an index would cost every run write a parse of its document).
    clauses.push("EXISTS (SELECT 1 FROM json_each(doc, '$.tags') WHERE value = ?)");
    params.push(tag);
  }
  if (q.idPrefix !== undefined) {
    // substr, not LIKE: LIKE ignores ASCII case and gives `%` and `_` a meaning in a run id.
    clauses.push('substr(run_id, 1, length(?)) = ?');
    params.push(q.idPrefix, q.idPrefix);
  }
  for (const match of q.payload) {
    const path = jsonPath(['payload', ...match.path]);
    clauses.push(SCALAR_EQUALS);
    params.push(path, path, match.text, path, match.number, path, match.number, match.boolean ?? '', match.boolean ?? '');
  }
  if (q.verdict !== undefined) {
    const verdict = q.verdict;
    clauses.push(`(${VERDICT_FIELDS.map(() => "(json_type(doc, ?) = 'text' AND json_extract(doc, ?) = ?)").join(' OR ')})`);
    for (const field of VERDICT_FIELDS) params.push(jsonPath(['result', field]), jsonPath(['result', field]), verdict);
  }
  return { where: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}

/** Ready and running runs by (type, key) with the oldest ready admission of each, ready runs by priority too. */
export function queueGroups(db: Database.Database, now: Date): QueueGroup[] {
  const rows = statement(
    db,
    `SELECT type, concurrency_key AS key, priority,
            SUM(queue_state = 'ready') AS ready,
            SUM(status = 'running') AS running,
            MIN(CASE WHEN queue_state = 'ready' THEN created_at END) AS oldestReadyAt,
            SUM(queue_state = 'ready' AND not_before IS NOT NULL AND not_before > ?) AS notBefore
     FROM runs WHERE queue_state = 'ready' OR status = 'running' GROUP BY type, concurrency_key, priority`,
  ).all(now.toISOString()) as QueueGroupRow[];
  return foldQueueGroups(rows);
}
