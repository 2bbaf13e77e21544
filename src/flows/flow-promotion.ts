import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags } from '../tasks/admission.js';
import { indexHeldRun } from '../tasks/approval-index.js';
import { applyCancelRequest } from '../tasks/run-cancellation.js';
import { FLOW_COLLECTIONS, flowStepRunId, type FlowDoc } from './flow-definition.js';
import { flowStatusOf, planFlow, type StepAction } from './flow-plan.js';
import { loadFlow, type FlowOutcomeDoc, type LoadedFlow } from './flow-reader.js';
import { isWaiting, promoteWaiting, skipWaiting } from './flow-transitions.js';

export interface FlowAdvanceDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  /** Called after a step became claimable, so a runner picks it up at once. */
  onReady: () => void;
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

  async function apply(flow: LoadedFlow, action: StepAction): Promise<void> {
    const now = deps.clock.now();
    const runId = flowStepRunId(flow.doc.flowId, action.key);
    const written = await store.mutateRun(runId, (current) => {
      if (!isWaiting(current)) return null;
      if (action.kind === 'promote') return promoteWaiting(current, now);
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
    if (!flow || flow.outcome) return flow;
    if ([...flow.runs.values()].some((run) => run === null)) {
      await deps.ensureSteps(flow.doc);
      flow = (await loadFlow(store, flowId))!;
    }
    const actions = planFlow(flow.doc, flow.snapshot);
    if (actions.length > 0) {
      const loaded = flow;
      await Promise.all(actions.map((action) => apply(loaded, action)));
      flow = (await loadFlow(store, flowId))!;
    }
    const status = flowStatusOf(flow.doc, flow.snapshot);
    if (status !== 'running' && !flow.outcome) {
      const outcome: FlowOutcomeDoc = { status, endedAt: deps.clock.now().toISOString() };
      await store.insertDoc(FLOW_COLLECTIONS.outcomes, flowId, { ...outcome });
      flow = (await loadFlow(store, flowId))!;
    }
    return flow;
  }

  return { advance };
}
