import { DomainError, invalidRequest, pointer } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import { TERMINAL_RUN_STATUSES, type RunRecord, type RunStatus } from '../domain/run-record.js';
import type { RunQuery, StateStore } from '../store/types.js';
import type { AdmissionOutcome } from './admission.js';
import { getCatalogEntry } from './catalog.js';
import type { CancelReply } from './run-cancel.js';
import { cancelDecisionFor } from './run-cancellation.js';
import type { RerunRequest } from './rerun.js';
import { checkCreatedRange } from './run-time-range.js';

/** How many runs one bulk request acts on when it does not say, and the most it may ask for. */
export const DEFAULT_BULK_MAX = 100;
export const MAX_BULK_MAX = 500;

/** Which runs a bulk action picks: the run listing's filters (internal task types left out, as there). */
export type BulkFilter = Pick<RunQuery, 'type' | 'status' | 'queueState' | 'idPrefix' | 'payload' | 'verdict' | 'tags' | 'createdFrom' | 'createdTo'>;

/** A filter, or exact run ids (the console's selected rows); exactly one of the two. */
export interface BulkRequest {
  filter?: BulkFilter;
  runIds?: string[];
  dryRun?: boolean;
  max?: number;
}

export type BulkCancelOutcome = 'cancelled' | 'cancelling' | 'already-finished' | 'refused' | 'not-found';
export type BulkRerunOutcome = 'rerun' | 'refused' | 'not-found';

export interface BulkRunOutcome<O extends string> {
  runId: string;
  /** Null for an id that names no run. */
  type: string | null;
  /** The run's status when it was picked (null: no such run). */
  status: RunStatus | null;
  outcome: O;
  /** Why it was refused or left alone. */
  reason?: string;
  /** The rerun's id (null in a dry run, where nothing is admitted). */
  newRunId?: string | null;
}

export interface BulkAnswer<O extends string> {
  dryRun: boolean;
  /** Runs the filter matched (the ids given, for `runIds`). */
  matched: number;
  /** True when more runs matched than `max`: only the newest `max` were acted on. */
  truncated: boolean;
  runs: Array<BulkRunOutcome<O>>;
}

export interface BulkDeps {
  store: Pick<StateStore, 'listRuns' | 'getRun'>;
  /** The single-run cancel (run-cancel.ts): roles were checked by the route, the actor is recorded as there. */
  cancel: (runId: string, reason: string | null, identity: Identity) => Promise<CancelReply>;
  /** The single-run rerun (rerun.ts): admitted through the one admission path, requesters carried over. */
  rerun: (runId: string, request: RerunRequest, identity: Identity) => Promise<AdmissionOutcome>;
}

const FILTER_FIELDS: ReadonlyArray<keyof BulkFilter> = ['type', 'status', 'queueState', 'idPrefix', 'payload', 'verdict', 'tags', 'createdFrom', 'createdTo'];

/** The runs a request names, newest first, at most `max`; a request naming none or all is refused. */
async function pickRuns(deps: BulkDeps, request: BulkRequest): Promise<{ picked: Array<{ runId: string; run: RunRecord | null }>; matched: number }> {
  const max = request.max ?? DEFAULT_BULK_MAX;
  if (!Number.isInteger(max) || max < 1 || max > MAX_BULK_MAX) {
    throw invalidRequest(`max must be a whole number from 1 to ${MAX_BULK_MAX}`, [{ path: pointer('body', 'max'), message: `at most ${MAX_BULK_MAX}` }]);
  }
  if ((request.filter === undefined) === (request.runIds === undefined)) {
    throw invalidRequest('send either filter or runIds', [{ path: pointer('body'), message: 'exactly one of filter and runIds' }]);
  }
  if (request.runIds !== undefined) {
    const runIds = [...new Set(request.runIds)];
    if (runIds.length > max) {
      throw invalidRequest(`${runIds.length} run ids is more than max (${max})`, [{ path: pointer('body', 'runIds'), message: `at most ${max} ids` }]);
    }
    const picked = await Promise.all(runIds.map(async (runId) => ({ runId, run: await deps.store.getRun(runId) })));
    return { picked, matched: runIds.length };
  }
  const filter = request.filter!;
  // An empty filter would pick every run: a bulk action always says what it is about.
  if (!FILTER_FIELDS.some((field) => filter[field] !== undefined && !(field === 'payload' && Object.keys(filter.payload ?? {}).length === 0) && !(field === 'tags' && filter.tags?.length === 0))) {
    throw invalidRequest('the filter names no criterion: a bulk action never picks every run', [
      { path: pointer('body', 'filter'), message: `name at least one of ${FILTER_FIELDS.join(', ')}` },
    ]);
  }
  checkCreatedRange(filter.createdFrom, filter.createdTo);
  const { items, total } = await deps.store.listRuns({ ...filter, includeInternal: false, limit: max });
  return { picked: items.map((run) => ({ runId: run.runId, run })), matched: total };
}

function answer<O extends string>(request: BulkRequest, matched: number, runs: Array<BulkRunOutcome<O>>): BulkAnswer<O> {
  return { dryRun: request.dryRun === true, matched, truncated: matched > runs.length && request.runIds === undefined, runs };
}

/** Codes that refuse one run; any other (a store away, damaged state, a bug) fails the whole request. */
const REFUSING_ONE_RUN: ReadonlySet<string> = new Set([
  'invalid_request',
  'task_type_internal',
  'reserved_field',
  'scope_outside_workspace',
  'forbidden',
  'not_found',
  'conflict',
]);

function refusesOneRun(err: unknown): err is DomainError {
  return err instanceof DomainError && REFUSING_ONE_RUN.has(err.code);
}

const finished = (status: RunStatus) => TERMINAL_RUN_STATUSES.includes(status);

/** What cancelling this run would do, read from the same decision the cancel itself takes. */
function cancelForecast(run: RunRecord): Pick<BulkRunOutcome<BulkCancelOutcome>, 'outcome' | 'reason'> {
  const decision = cancelDecisionFor(run);
  switch (decision.kind) {
    case 'end-now':
      return { outcome: 'cancelled' };
    case 'stop-running':
    case 'already-cancelling':
      return { outcome: 'cancelling' };
    case 'already-cancelled':
      return { outcome: 'already-finished', reason: `run ${run.runId} is already cancelled` };
    case 'conflict':
      return finished(run.status) ? { outcome: 'already-finished', reason: decision.message } : { outcome: 'refused', reason: decision.message };
  }
}

async function cancelOne(deps: BulkDeps, run: RunRecord, reason: string | null, identity: Identity): Promise<Pick<BulkRunOutcome<BulkCancelOutcome>, 'outcome' | 'reason'>> {
  if (run.status === 'cancelled') return cancelForecast(run);
  try {
    const reply = await deps.cancel(run.runId, reason, identity);
    return { outcome: reply.status };
  } catch (err) {
    if (!refusesOneRun(err)) throw err;
    if (err.code === 'not_found') return { outcome: 'not-found', reason: err.message };
    const now = await deps.store.getRun(run.runId);
    return { outcome: err.code === 'conflict' && now !== null && finished(now.status) ? 'already-finished' : 'refused', reason: err.message };
  }
}

function rerunForecast(run: RunRecord): Pick<BulkRunOutcome<BulkRerunOutcome>, 'outcome' | 'reason' | 'newRunId'> {
  const entry = getCatalogEntry(run.type);
  if (!entry) return { outcome: 'refused', reason: `its task type '${run.type}' is not in the catalog` };
  if (entry.internalOnly) return { outcome: 'refused', reason: `its task type '${run.type}' is internal-only` };
  return { outcome: 'rerun', newRunId: null };
}

async function rerunOne(deps: BulkDeps, run: RunRecord, identity: Identity): Promise<Pick<BulkRunOutcome<BulkRerunOutcome>, 'outcome' | 'reason' | 'newRunId'>> {
  try {
    const admitted = await deps.rerun(run.runId, {}, identity);
    return { outcome: 'rerun', newRunId: admitted.run.runId };
  } catch (err) {
    if (!refusesOneRun(err)) throw err;
    return { outcome: err.code === 'not_found' ? 'not-found' : 'refused', reason: err.message };
  }
}

/**
 * Cancel and rerun of many runs at once (docs/http.md, "Bulk cancel and rerun"). Each run goes
 * through the single-run cancel or rerun, one after the other, so every rule of those holds
 * (the actor, requesters, approvals closing, reserved ids). A run one of them refuses is
 * reported and the rest go on; a store that is away fails the whole request (503). A dry run
 * writes nothing and reports what each run would come to.
 */
export function createBulkActions(deps: BulkDeps) {
  /** Picks the runs, then takes each through `act` (or `forecast`, in a dry run), one after the other. */
  async function each<O extends string>(
    request: BulkRequest,
    act: (run: RunRecord) => Promise<Omit<BulkRunOutcome<O>, 'runId' | 'type' | 'status'>>,
    forecast: (run: RunRecord) => Omit<BulkRunOutcome<O>, 'runId' | 'type' | 'status'>,
    notFound: O,
  ): Promise<BulkAnswer<O>> {
    const { picked, matched } = await pickRuns(deps, request);
    const runs: Array<BulkRunOutcome<O>> = [];
    for (const { runId, run } of picked) {
      if (run === null) {
        runs.push({ runId, type: null, status: null, outcome: notFound, reason: `run ${runId} was not found` });
        continue;
      }
      const result = request.dryRun === true ? forecast(run) : await act(run);
      runs.push({ runId, type: run.type, status: run.status, ...result });
    }
    return answer(request, matched, runs);
  }

  return {
    cancel: (request: BulkRequest & { reason?: string }, identity: Identity): Promise<BulkAnswer<BulkCancelOutcome>> =>
      each<BulkCancelOutcome>(request, (run) => cancelOne(deps, run, request.reason ?? null, identity), cancelForecast, 'not-found'),
    rerun: (request: BulkRequest, identity: Identity): Promise<BulkAnswer<BulkRerunOutcome>> =>
      each<BulkRerunOutcome>(request, (run) => rerunOne(deps, run, identity), rerunForecast, 'not-found'),
  };
}

export type BulkActions = ReturnType<typeof createBulkActions>;
