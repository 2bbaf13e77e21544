import type { RunRecord } from '../domain/run-record.js';
import type { FlowDoc } from './flow-definition.js';
import { flowStatusOf, type FlowStatus } from './flow-plan.js';
import type { FlowCancelDoc, FlowOutcomeDoc, LoadedFlow } from './flow-reader.js';
import { workRunOf, type FlowStepState } from './flow-step-state.js';

export interface FlowStepView {
  key: string;
  type: string;
  dependsOn: string[];
  onDependencyFailure: string;
  runId: string | null;
  /** The approval replay doing an approved step's work; null when the step is not gated or not yet approved. */
  replayRunId: string | null;
  state: FlowStepState;
  /** Why the flow skipped or failed the step, when it did. */
  reason: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface FlowSummary {
  flowId: string;
  status: FlowStatus;
  /** True once a cancel was requested (the status says `cancelled` when every step ended). */
  cancelRequested: boolean;
  createdAt: string;
  endedAt: string | null;
  requestedBy: string;
  idempotencyKey: string | null;
  rerunOf: string | null;
  stepCount: number;
}

export interface FlowView extends FlowSummary {
  steps: FlowStepView[];
}

/** A flow's list entry from its documents alone: no step run is read. */
export function flowSummaryOf(doc: FlowDoc, cancel: FlowCancelDoc | null, outcome: FlowOutcomeDoc | null): FlowSummary {
  return {
    flowId: doc.flowId,
    status: outcome?.status ?? 'running',
    cancelRequested: cancel !== null,
    createdAt: doc.createdAt,
    endedAt: outcome?.endedAt ?? null,
    requestedBy: doc.requestedBy,
    idempotencyKey: doc.idempotencyKey,
    rerunOf: doc.rerunOf,
    stepCount: doc.steps.length,
  };
}

function reasonOf(run: RunRecord | null, work: RunRecord | null): string | null {
  if (run?.flowStep?.skipped) return run.flowStep.skipped.reason;
  return work?.status === 'failed' || work?.status === 'cancelled' ? (work.error ?? work.failureReason) : null;
}

export function toFlowView(flow: LoadedFlow): FlowView {
  const summary = flowSummaryOf(flow.doc, flow.cancel, flow.outcome);
  // Every step ended but the end is not recorded yet (the next advance records it): say so already.
  const status = flow.outcome ? summary.status : flowStatusOf(flow.doc, flow.snapshot);
  return {
    ...summary,
    status,
    steps: flow.doc.steps.map((step) => {
      const run = flow.runs.get(step.key) ?? null;
      const replay = flow.replays.get(step.key) ?? null;
      const work = workRunOf(run, replay) ?? run;
      return {
        key: step.key,
        type: step.type,
        dependsOn: step.dependsOn,
        onDependencyFailure: step.onDependencyFailure,
        runId: run?.runId ?? null,
        replayRunId: run?.approval.replayRunId ?? null,
        state: flow.snapshot.states.get(step.key) ?? 'missing',
        reason: reasonOf(run, work),
        startedAt: work?.startedAt ?? null,
        finishedAt: work?.finishedAt ?? run?.finishedAt ?? null,
      };
    }),
  };
}
