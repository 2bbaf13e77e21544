import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { invalidRequest, notFound, pointer } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import { placementOf, type RunRecord } from '../domain/run-record.js';
import { tagsOf } from '../domain/run-tags.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags, type AdmissionOutcome, type Admit } from './admission.js';
import { getCatalogEntry } from './catalog.js';
import { actorList, requestersOf } from './run-requesters.js';
import type { TriggerCheck } from './trigger-check.js';

/** Rerun ids an original keeps in `reruns[]`, newest kept (each rerun still names its original in `rerunOf`). */
export const MAX_RERUN_LINKS = 50;

export interface RerunRequest {
  /** Top-level fields replacing the original's; a field set to null is removed (JSON merge patch, one level). */
  payload?: Record<string, unknown>;
  /** Becomes the new run's id, as a trigger's `payload.idempotencyKey` does; absent: a fresh id. */
  idempotencyKey?: string;
}

export interface RerunDeps {
  store: StateStore;
  admit: Admit;
  checkTrigger: TriggerCheck;
  invalidator: CacheInvalidator;
}

const RUN_ID_PATH = pointer('params', 'runId');

/**
 * The payload of a rerun: the original's, without what the service set on it (`__` keys: its
 * incident link, sandbox and snapshot input) and without its idempotency key (the original owns
 * that id), then the requested changes on top.
 */
export function rerunPayload(original: Record<string, unknown>, request: RerunRequest): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(original)) {
    if (!key.startsWith('__') && key !== 'idempotencyKey') payload[key] = value;
  }
  for (const [key, value] of Object.entries(request.payload ?? {})) {
    if (value === null) delete payload[key];
    else payload[key] = value;
  }
  const fromPayload = request.payload?.idempotencyKey;
  if (request.idempotencyKey !== undefined && typeof fromPayload === 'string' && fromPayload !== request.idempotencyKey) {
    throw invalidRequest('idempotencyKey and payload.idempotencyKey differ: send one of them', [
      { path: pointer('body', 'idempotencyKey'), message: 'differs from payload.idempotencyKey' },
    ]);
  }
  if (request.idempotencyKey !== undefined) payload.idempotencyKey = request.idempotencyKey;
  return payload;
}

/**
 * Reruns a run: a new run of the same type with the original's payload (changed as asked),
 * checked like a trigger and admitted through the one admission path with source `rerun`. The
 * new run names its original in `rerunOf`; the original lists it in `reruns[]`.
 */
export function createRerun(deps: RerunDeps) {
  const { store } = deps;

  /**
   * Adds the rerun to its original's `reruns[]`: one compare-and-set, a no-op when already listed.
   * A repair (a repeated request) leaves a full list alone: the id missing from it was more
   * likely trimmed as the oldest than lost, and must not come back as the newest.
   */
  async function link(originalId: string, rerunId: string, repair: boolean): Promise<void> {
    const result = await store.mutateRun(originalId, (current) => {
      const listed = current?.reruns ?? [];
      if (!current || listed.includes(rerunId) || (repair && listed.length >= MAX_RERUN_LINKS)) return null;
      return { ...current, reruns: [...listed, rerunId].slice(-MAX_RERUN_LINKS) };
    });
    if (result.changed && result.after) await deps.invalidator.invalidate(runWriteTags(result.after, result.before?.status ?? null));
  }

  return async function rerun(runId: string, request: RerunRequest, identity: Identity): Promise<AdmissionOutcome> {
    const original: RunRecord | null = await store.getRun(runId);
    if (!original) throw notFound(`run ${runId}`);
    const entry = getCatalogEntry(original.type);
    if (!entry) {
      throw invalidRequest(`run ${runId} is of task type '${original.type}', which the catalog no longer knows`, [
        { path: RUN_ID_PATH, message: `its task type '${original.type}' is not in the catalog` },
      ]);
    }
    if (entry.internalOnly) {
      throw invalidRequest(`run ${runId} is of internal task type '${original.type}': only the service starts those, so it cannot be rerun`, [
        { path: RUN_ID_PATH, message: `its task type '${original.type}' is internal-only` },
      ]);
    }
    const checked = deps.checkTrigger({ type: original.type, payload: rerunPayload(original.payload, request) });
    const outcome = await deps.admit({
      type: checked.type,
      payload: checked.payload,
      source: 'rerun',
      requestedBy: identity.actor,
      // The original's work, asked for again: its requesters ask for it as much as the caller.
      requesters: actorList([identity.actor], requestersOf(original)),
      rerunOf: original.runId,
      // The original's place in the queue: its key's caps and fairness apply to its repeat too.
      placement: placementOf(original),
      // Its labels too: a rerun of a tagged run is found (and scoped) as the original is.
      tags: tagsOf(original),
    });
    // A repeated request (same key) finds the rerun it admitted before: linking again repairs a
    // link a crash left unwritten. A key owned by any other run is not a rerun of this one.
    if (outcome.run.rerunOf === original.runId) await link(original.runId, outcome.run.runId, outcome.kind !== 'admitted');
    return outcome;
  };
}

export type Rerun = ReturnType<typeof createRerun>;
