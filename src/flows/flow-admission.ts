import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { ProgrammingError } from '../domain/errors.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../runtime/admission.js';
import { requestedPlacement } from '../runtime/placement-schema.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { actorList } from '../runtime/run-requesters.js';
import { FLOW_COLLECTIONS, flowListKey, flowStepRunId, type FlowDoc, type FlowScheduledBy } from './flow-definition.js';
import { validateFlowSteps, type FlowStepRequest } from './flow-validation.js';

export interface FlowRequest {
  id?: string;
  idempotencyKey?: string;
  steps: FlowStepRequest[];
  requestedBy: string;
  /** Every actor the flow is requested by (`requestedBy` first); absent: `requestedBy` alone. */
  requesters?: readonly string[];
  rerunOf?: string;
  /** A rerun: the steps whose earlier successful run it reuses (key -> that run id). */
  reuse?: ReadonlyMap<string, string>;
  /** A schedule's firing (`id` derived from the schedule and the fire time). */
  scheduledBy?: FlowScheduledBy;
}

export type FlowAdmissionOutcome = { kind: 'admitted' | 'duplicate'; doc: FlowDoc };

export interface FlowAdmissionDeps {
  store: StateStore;
  clock: Clock;
  admit: Admit;
  checkTrigger: TriggerCheck;
}

/** How many step admissions are in flight at once: a store commits concurrent writes together. */
const ADMIT_CONCURRENCY = 32;

/**
 * Admits a flow all or none. Every step is checked before anything is written; then the flow
 * document is inserted (insert-if-absent: the same id, or the same idempotency key, is a
 * duplicate), then every step run through the one admission path, `waiting` and under the
 * derived id `flow:<flowId>:<key>`, so writing them twice admits each once. A crash between
 * the document and its last step leaves a flow whose steps are missing: the flows' sweep (and a
 * duplicate request) completes it from the stored document, so nothing admitted is lost.
 */
export function createFlowAdmission(deps: FlowAdmissionDeps) {
  const { store } = deps;

  async function ensureSteps(doc: FlowDoc): Promise<void> {
    // Listed before its steps: a crash cutting the steps leaves them missing, and the sweep's
    // completion lists it again (idempotent) before it admits them.
    await store.insertDoc(FLOW_COLLECTIONS.listing, flowListKey(doc), { flowId: doc.flowId });
    // A reused step's run is the earlier flow's: nothing to admit for it.
    const queue = doc.steps.filter((s) => s.reusedRunId === undefined);
    const requesters = doc.requesters.length > 0 ? doc.requesters : [doc.requestedBy];
    async function worker(): Promise<void> {
      for (let step = queue.shift(); step; step = queue.shift()) {
        await deps.admit({
          type: step.type,
          payload: step.payload,
          source: 'flow',
          requestedBy: doc.requestedBy,
          requesters,
          forceRunId: flowStepRunId(doc.flowId, step.key),
          flowStep: { flowId: doc.flowId, key: step.key },
          waiting: true,
          // Claimed by the fair-queue rules once promoted: its key and priority are stored now.
          placement: requestedPlacement(step),
          tags: step.tags,
        });
      }
    }
    await Promise.all(Array.from({ length: Math.min(ADMIT_CONCURRENCY, queue.length) }, worker));
    // Every step run is stored: a step run missing from now on was pruned, never to be admitted again.
    await store.insertDoc(FLOW_COLLECTIONS.admitted, doc.flowId, { at: deps.clock.now().toISOString() });
  }

  /** The flow id an idempotency key names: the one recorded first for it (of two racing, one wins). */
  async function flowIdForKey(key: string, proposed: string): Promise<string> {
    await store.insertDoc(FLOW_COLLECTIONS.keys, key, { flowId: proposed });
    const owner = (await store.getDoc(FLOW_COLLECTIONS.keys, key)) as { flowId?: unknown } | null;
    return typeof owner?.flowId === 'string' ? owner.flowId : proposed;
  }

  async function admitFlow(request: FlowRequest): Promise<FlowAdmissionOutcome> {
    const steps = validateFlowSteps(request.steps, deps.checkTrigger).map((step) => {
      const reusedRunId = request.reuse?.get(step.key);
      return reusedRunId === undefined ? step : { ...step, reusedRunId };
    });
    const proposed = request.id ?? randomUUID();
    const flowId = request.idempotencyKey === undefined ? proposed : await flowIdForKey(request.idempotencyKey, proposed);
    const doc: FlowDoc = {
      flowId,
      idempotencyKey: request.idempotencyKey ?? null,
      requestedBy: request.requestedBy,
      requesters: actorList([request.requestedBy], request.requesters ?? []),
      createdAt: deps.clock.now().toISOString(),
      rerunOf: request.rerunOf ?? null,
      ...(request.scheduledBy ? { scheduledBy: request.scheduledBy } : {}),
      steps,
    };
    // Listed for the sweep first: a crash right after the document is written still leaves it found.
    await store.insertDoc(FLOW_COLLECTIONS.open, flowId, { since: doc.createdAt });
    const created = await store.insertDoc(FLOW_COLLECTIONS.flows, flowId, { ...doc });
    const stored = created ? doc : ((await store.getDoc(FLOW_COLLECTIONS.flows, flowId)) as FlowDoc | null);
    // insertDoc found one: it is there (flows are never deleted).
    if (!stored) throw new ProgrammingError(`flow ${flowId} neither inserted nor found`);
    await ensureSteps(stored);
    return { kind: created ? 'admitted' : 'duplicate', doc: stored };
  }

  return { admitFlow, ensureSteps };
}
