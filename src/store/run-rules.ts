import { RUN_STATUSES, TERMINAL_RUN_STATUSES, type RunRecord, type RunStatus } from '../domain/run-record.js';
import { ProgrammingError } from '../domain/errors.js';
import { hasAllTags } from '../domain/run-tags.js';
import { APPROVAL_REJECTED_REASON, type ApprovalSettlement } from '../domain/approval-refusal.js';
import { payloadFieldMatches, payloadHasField, resultHasVerdict, type PayloadFieldMatch } from './run-field-filters.js';
import type { CancelRequest, ClaimOptions, RunCounts, RunQuery } from './types.js';

/**
 * Run semantics every driver shares: how the store owns `seq`, which runs a claim may take,
 * which runs pruning may delete, and the defaults of a listing. The drivers only decide how to
 * find and store rows; the rules live here.
 */

/** Only finished runs (success, failed, cancelled, skipped) are ever pruned; waiting, pending, running and retrying runs are kept whatever their age. */
export const PRUNABLE_STATUSES: readonly RunStatus[] = TERMINAL_RUN_STATUSES;

export const DEFAULT_RUN_LIST_LIMIT = 50;

export interface NormalizedRunQuery {
  type: string | undefined;
  status: RunStatus | undefined;
  queueState: Exclude<RunRecord['queueState'], null> | undefined;
  concurrencyKey: string | undefined;
  flowId: string | undefined;
  /** Tags a run must all carry, each once; empty: no tag filter. */
  tags: string[];
  /** An empty prefix is no filter. */
  idPrefix: string | undefined;
  /** Payload fields to match exactly; empty: no payload filter. */
  payload: PayloadFieldMatch[];
  verdict: string | undefined;
  includeInternal: boolean;
  limit: number;
  offset: number;
  order: 'newest' | 'oldest';
  afterSeq: number | undefined;
  /** Bounds of createdAt in the stored spelling (toISOString), so every driver compares them as text. */
  createdFrom: string | undefined;
  createdTo: string | undefined;
}

/** A query field that one column answers: the run must hold the field's value in it (`=`) or lie within its bound. */
export interface RunColumnFilter {
  field: 'type' | 'status' | 'queueState' | 'concurrencyKey' | 'flowId' | 'createdFrom' | 'createdTo';
  column: string;
  operator: '=' | '>=' | '<';
}

/**
 * The filters the SQL drivers answer from a column, each as (query field, column, operator); a
 * field left undefined is no filter. The filters that read inside a run's document (tags,
 * payload, verdict) and the id prefix are each driver's own SQL.
 */
export const RUN_COLUMN_FILTERS: readonly RunColumnFilter[] = [
  { field: 'type', column: 'type', operator: '=' },
  { field: 'status', column: 'status', operator: '=' },
  { field: 'queueState', column: 'queue_state', operator: '=' },
  { field: 'concurrencyKey', column: 'concurrency_key', operator: '=' },
  { field: 'flowId', column: 'flow_id', operator: '=' },
  { field: 'createdFrom', column: 'created_at', operator: '>=' },
  { field: 'createdTo', column: 'created_at', operator: '<' },
];

export function normalizeRunQuery(query: RunQuery): NormalizedRunQuery {
  return {
    type: query.type,
    status: query.status,
    queueState: query.queueState,
    concurrencyKey: query.concurrencyKey,
    flowId: query.flowId,
    tags: [...new Set(query.tags ?? [])],
    idPrefix: query.idPrefix === '' ? undefined : query.idPrefix,
    payload: payloadFieldMatches(query.payload),
    verdict: query.verdict,
    includeInternal: query.includeInternal === true,
    limit: wholeNumber(query.limit, DEFAULT_RUN_LIST_LIMIT),
    offset: wholeNumber(query.offset, 0),
    order: query.order ?? 'newest',
    afterSeq: query.afterSeq !== undefined && Number.isFinite(query.afterSeq) ? Math.floor(query.afterSeq) : undefined,
    createdFrom: storedInstant(query.createdFrom),
    createdTo: storedInstant(query.createdTo),
  };
}

/**
 * An instant spelled as run records store createdAt (`Date#toISOString`: UTC, milliseconds), so
 * a text comparison orders it as time in every driver, whatever offset or precision the caller
 * used. Callers check the bounds first (the HTTP schema, the runtime); a bound that is not an
 * instant here is a bug.
 */
function storedInstant(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new ProgrammingError(`run query bound is not an instant: ${value}`);
  return at.toISOString();
}

/** True when the run lies past the query's cursor in listing order (always true without a cursor). */
export function pastCursor(run: RunRecord, query: NormalizedRunQuery): boolean {
  if (query.afterSeq === undefined) return true;
  return query.order === 'newest' ? run.seq < query.afterSeq : run.seq > query.afterSeq;
}

function wholeNumber(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.max(0, Math.floor(value));
}

export function matchesRunQuery(run: RunRecord, query: NormalizedRunQuery): boolean {
  if (!query.includeInternal && run.internal) return false;
  if (query.type !== undefined && run.type !== query.type) return false;
  if (query.status !== undefined && run.status !== query.status) return false;
  if (query.queueState !== undefined && run.queueState !== query.queueState) return false;
  if (query.concurrencyKey !== undefined && (run.concurrencyKey ?? '') !== query.concurrencyKey) return false;
  if (query.flowId !== undefined && run.flowStep?.flowId !== query.flowId) return false;
  if (!hasAllTags(run, query.tags)) return false;
  if (query.idPrefix !== undefined && !run.runId.startsWith(query.idPrefix)) return false;
  if (!query.payload.every((match) => payloadHasField(run.payload, match))) return false;
  if (query.verdict !== undefined && !resultHasVerdict(run.result, query.verdict)) return false;
  if (query.createdFrom !== undefined && !(run.createdAt >= query.createdFrom)) return false;
  if (query.createdTo !== undefined && !(run.createdAt < query.createdTo)) return false;
  return true;
}

/**
 * The record a mutator's result is stored as. `seq` belongs to the store: a new run gets the
 * next admission number, an existing run keeps its own (claims are FIFO by it, so a caller must
 * not be able to move a run in the queue by accident). A mutator returning another run's id is
 * a programming error and nothing is stored.
 */
export function storedRun(runId: string, current: RunRecord | null, next: RunRecord, nextSeq: () => number): RunRecord {
  if (next.runId !== runId) {
    throw new ProgrammingError(`run mutator for ${runId} returned a record for ${String(next.runId)}`);
  }
  const seq = current === null ? nextSeq() : current.seq;
  // A transition's record usually carries its seq already: no copy of thirty fields to set it.
  return next.seq === seq ? next : { ...next, seq };
}

/** Types a claim must skip: the caller's exclusions plus every type whose running count reached its limit. */
export function blockedTypes(options: ClaimOptions, runningByType: ReadonlyMap<string, number>): Set<string> {
  const blocked = new Set(options.excludeTypes ?? []);
  for (const [type, limit] of Object.entries(options.typeLimits)) {
    if ((runningByType.get(type) ?? 0) >= limit) blocked.add(type);
  }
  return blocked;
}

export function emptyStatusCounts(): Record<RunStatus, number> {
  return Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
}

export function emptyRunCounts(): RunCounts {
  return { byStatus: emptyStatusCounts(), byType: {}, settledByApprovalByType: {}, ready: 0, held: 0, total: 0 };
}

/**
 * Adds `count` runs of one (type, status, queueState, settlement) combination to `counts`. The
 * SQL stores compute `settlement` in their query (settlementSql); the file store from the record.
 */
export function addToRunCounts(
  counts: RunCounts,
  run: Pick<RunRecord, 'type' | 'status' | 'queueState'>,
  count = 1,
  settlement: ApprovalSettlement | null = null,
): void {
  counts.total += count;
  counts.byStatus[run.status] += count;
  const forType = (counts.byType[run.type] ??= emptyStatusCounts());
  forType[run.status] += count;
  if (settlement) {
    const settled = (counts.settledByApprovalByType[run.type] ??= { rejected: 0, closedForReplay: 0 });
    settled[settlement] += count;
  }
  if (run.queueState === 'ready') counts.ready += count;
  if (run.queueState === 'held') counts.held += count;
}

/** The run as a cancel request when it is running with a cancel requested, else null. */
export function cancelRequestOf(run: RunRecord | null | undefined): CancelRequest | null {
  if (!run || run.status !== 'running' || !run.cancellation) return null;
  return { runId: run.runId, attempt: run.attempt ?? 1, ownerId: run.claim?.ownerId ?? null };
}

/**
 * The approval settlement of a run row as SQL (domain/approval-refusal.ts, approvalSettlementOf),
 * for a store whose document column reads through `field(path)`: `'rejected'`, `'closedForReplay'`
 * or NULL. Both SQL stores count with it, so they agree with the file store's count.
 */
export function settlementSql(field: (path: string[]) => string): string {
  return `CASE
      WHEN status = 'failed' AND ${field(['failureReason'])} = '${APPROVAL_REJECTED_REASON}' THEN 'rejected'
      WHEN status = 'success' AND ${field(['startedAt'])} IS NULL AND ${field(['approval', 'status'])} = 'approved' THEN 'closedForReplay'
    END`;
}

/**
 * A run record stored before flow steps had run status words of their own (DECISIONS.md
 * "Platform"), in today's words: a step waiting for its dependencies was `pending` with queue
 * state `waiting`, now `waiting`; a step its dependencies' outcome ended was `cancelled` with
 * `flowStep.skipped`, now `skipped`. Any other record is returned as it is. The SQL stores
 * rewrite their rows once (PostgreSQL layout 9, SQLite layout 9); the file store upgrades each
 * record as it reads its snapshot and journal.
 */
export function withFlowStepStatus(run: RunRecord): RunRecord {
  if (run.status === 'pending' && run.queueState === 'waiting') return { ...run, status: 'waiting' };
  if (run.status === 'cancelled' && run.flowStep?.skipped) return { ...run, status: 'skipped' };
  return run;
}
