import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { FLOW_COLLECTIONS, flowStepRunId, type FlowDoc } from './flow-definition.js';
import type { FlowSnapshot } from './flow-plan.js';
import { stepStateOf, type FlowStepState } from './flow-step-state.js';

/** A flow's cancel request (doc collection `flow-cancels`). */
export interface FlowCancelDoc {
  requestedAt: string;
  requestedBy: string;
  reason: string | null;
}

/** A flow's end (doc collection `flow-outcomes`). */
export interface FlowOutcomeDoc {
  status: 'success' | 'failed' | 'cancelled';
  endedAt: string;
}

/** A flow as stored right now: its definition, each step's run (and replay), and the snapshot planFlow reads. */
export interface LoadedFlow {
  doc: FlowDoc;
  runs: Map<string, RunRecord | null>;
  /** The approval replay of each approved step (the run doing its work); absent when none. */
  replays: Map<string, RunRecord | null>;
  cancel: FlowCancelDoc | null;
  outcome: FlowOutcomeDoc | null;
  snapshot: FlowSnapshot;
}

export async function readFlowDoc(store: StateStore, flowId: string): Promise<FlowDoc | null> {
  return (await store.getDoc(FLOW_COLLECTIONS.flows, flowId)) as FlowDoc | null;
}

/**
 * Reads a whole flow: its step runs and their approval replays in one listing by the flow id
 * (every driver indexes it), the runs a rerun reuses (another flow's) by their ids. What a
 * settled step moves on reads less (flow-promotion.ts); this serves the views, the cancel, the
 * rerun and a flow's end. `readDoc`: where the definition comes from (the flows' kept ones, flow-docs.ts).
 */
export async function loadFlow(store: StateStore, flowId: string, readDoc: (flowId: string) => Promise<FlowDoc | null> = (id) => readFlowDoc(store, id)): Promise<LoadedFlow | null> {
  const doc = await readDoc(flowId);
  if (!doc) return null;
  const [listed, cancel, outcome, admitted] = await Promise.all([
    // Each step's run and at most one approval replay of it.
    store.listRuns({ flowId, includeInternal: true, limit: doc.steps.length * 2, order: 'oldest' }),
    store.getDoc(FLOW_COLLECTIONS.cancels, flowId),
    store.getDoc(FLOW_COLLECTIONS.outcomes, flowId),
    store.getDoc(FLOW_COLLECTIONS.admitted, flowId),
  ]);
  const byId = new Map(listed.items.map((run) => [run.runId, run]));
  const runs = new Map<string, RunRecord | null>();
  const replays = new Map<string, RunRecord | null>();
  for (const step of doc.steps) {
    const run = step.reusedRunId === undefined ? (byId.get(flowStepRunId(flowId, step.key)) ?? null) : await store.getRun(step.reusedRunId);
    runs.set(step.key, run);
    const replayId = run?.approval.replayRunId;
    if (replayId) replays.set(step.key, byId.get(replayId) ?? (await store.getRun(replayId)));
  }
  const states = new Map<string, FlowStepState>();
  const skippedBy = new Map<string, NonNullable<NonNullable<RunRecord['flowStep']>['skipped']>['policy']>();
  for (const step of doc.steps) {
    const run = runs.get(step.key) ?? null;
    states.set(step.key, stepStateOf(run, replays.get(step.key) ?? null, admitted !== null));
    if (run?.flowStep?.skipped) skippedBy.set(step.key, run.flowStep.skipped.policy);
  }
  return {
    doc,
    runs,
    replays,
    cancel: cancel as FlowCancelDoc | null,
    outcome: outcome as FlowOutcomeDoc | null,
    snapshot: { states, skippedBy, cancelled: cancel !== null },
  };
}
