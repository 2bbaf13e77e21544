import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { runWriteTags } from '../runtime/admission.js';
import { indexHeldRun } from '../runtime/approval-index.js';
import { applyCancelRequest } from '../runtime/run-cancellation.js';
import { FLOW_COLLECTIONS, flowStepRunId, type FlowDoc } from './flow-definition.js';
import { flowStatusOf, planFlow, type StepAction } from './flow-plan.js';
import { loadFlow, type FlowOutcomeDoc, type LoadedFlow } from './flow-reader.js';
import { describeReference, findReferences, referenceSource, resolveReferences } from './flow-references.js';
import { workRunOf } from './flow-step-state.js';
import { failWaiting, isWaiting, promoteWaiting, skipWaiting } from './flow-transitions.js';

export interface FlowAdvanceDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  /** Called after a step became claimable, so a runner picks it up at once. */
  onReady: () => void;
  /** Checks a step's payload once its references are resolved, as the trigger route checks one. */
  checkTrigger: TriggerCheck;
  /** Writes the step runs a cut admission left out (idempotent: FlowAdmission.ensureSteps). */
  ensureSteps: (doc: FlowDoc) => Promise<void>;
}

/**
 * Moves a flow on from what is stored: completes a cut admission, promotes each waiting step
 * whose dependencies ended (or skips or cancels it, by its policy and the flow's cancel), and
 * records the flow's end once every step ended. Every write is a compare-and-set on a run still
 * `waiting`, and the end is an insert-if-absent, so any number of calls, from any instance, at
 * any time, promote each step once and end the flow once. It keeps nothing in memory.
 */
export function createFlowAdvance(deps: FlowAdvanceDeps) {
  const { store } = deps;

  /**
   * The payload a promoted step runs with: its `$from` references replaced by its dependencies'
   * values (an approved dependency's from its replay) and checked against its payload schema;
   * or why it cannot run, naming the reference or the schema's complaint.
   */
  function payloadAtPromotion(flow: LoadedFlow, run: RunRecord): { ok: true; payload: Record<string, unknown> } | { ok: false; reason: string } {
    if (findReferences(run.payload).length === 0) return { ok: true, payload: run.payload };
    const resolved = resolveReferences(run.payload, (key) => {
      const work = workRunOf(flow.runs.get(key) ?? null, flow.replays.get(key) ?? null);
      return work ? referenceSource(work) : null;
    });
    if (!resolved.ok) return { ok: false, reason: `payload${resolved.at}: the reference ${describeReference(resolved.missing)} has no value` };
    try {
      return { ok: true, payload: deps.checkTrigger({ type: run.type, payload: resolved.payload }).payload };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const details = Array.isArray(err.details) ? (err.details as ErrorDetail[]) : [];
      return { ok: false, reason: [`the payload with its references resolved is refused: ${err.message}`, ...details.map((d) => `${d.path} ${d.message}`)].join('; ') };
    }
  }

  async function apply(flow: LoadedFlow, action: StepAction): Promise<void> {
    const now = deps.clock.now();
    const runId = flowStepRunId(flow.doc.flowId, action.key);
    const stored = flow.runs.get(action.key) ?? null;
    const payload = action.kind === 'promote' && stored ? payloadAtPromotion(flow, stored) : null;
    const written = await store.mutateRun(runId, (current) => {
      if (!isWaiting(current)) return null;
      if (action.kind === 'promote') {
        if (payload && !payload.ok) return failWaiting(current, now, payload.reason);
        return promoteWaiting(current, now, payload?.payload);
      }
      if (action.kind === 'skip') return skipWaiting(current, now, { policy: action.policy, reason: action.reason });
      return applyCancelRequest(current, now, { actor: flow.cancel?.requestedBy ?? 'service', reason: flow.cancel?.reason ?? 'the flow was cancelled' });
    });
    if (!written.changed || !written.after) return;
    const run = written.after;
    await deps.invalidator.invalidate(runWriteTags(run, written.before?.status ?? null));
    if (run.queueState === 'held') await indexHeldRun(store, run);
    if (run.queueState === 'ready') deps.onReady();
  }

  async function advance(flowId: string): Promise<LoadedFlow | null> {
    let flow = await loadFlow(store, flowId);
    if (!flow) return null;
    if (flow.outcome) {
      // Its end was recorded but a crash may have kept it listed as open.
      await store.deleteDoc(FLOW_COLLECTIONS.open, flowId);
      return flow;
    }
    if ([...flow.snapshot.states.values()].some((state) => state === 'missing')) {
      await deps.ensureSteps(flow.doc);
      flow = (await loadFlow(store, flowId))!;
    }
    // Until no step is left to decide: a promotion can end in a failure (an unresolved reference)
    // that its dependents decide on in turn. Each round takes at least one step out of `waiting`.
    for (let actions = planFlow(flow.doc, flow.snapshot); actions.length > 0; actions = planFlow(flow.doc, flow.snapshot)) {
      const loaded = flow;
      await Promise.all(actions.map((action) => apply(loaded, action)));
      flow = (await loadFlow(store, flowId))!;
    }
    const status = flowStatusOf(flow.doc, flow.snapshot);
    if (status !== 'running' && !flow.outcome) {
      const outcome: FlowOutcomeDoc = { status, endedAt: deps.clock.now().toISOString() };
      await store.insertDoc(FLOW_COLLECTIONS.outcomes, flowId, { ...outcome });
      await store.deleteDoc(FLOW_COLLECTIONS.open, flowId);
      flow = (await loadFlow(store, flowId))!;
    }
    return flow;
  }

  return { advance };
}
