import type { Logger } from 'pino';
import { DomainError } from '../../domain/errors.js';
import type { CacheInvalidator } from '../../domain/cache-invalidation.js';
import { WORKFLOW_STEP_MARK } from '../../domain/service-run-ids.js';
import type { StateStore } from '../../store/types.js';
import { checkPayloadScopes } from '../../workspace/boundary.js';
import { runWriteTags, type Admit } from '../../runtime/admission.js';
import { checkTaskRequest } from '../../runtime/payload-validation.js';
import { actorList, requestersOf } from '../../runtime/run-requesters.js';
import type { RunRecord, WorkflowChild, WorkflowStepState } from '../../domain/run-record.js';
import { incidentTriageType } from '../incident-triage/definition.js';
import { integrationWorkflowType } from './definition.js';

export const WORKFLOW_TYPE = integrationWorkflowType.type;

export interface WorkflowDriverDeps {
  store: StateStore;
  logger: Logger;
  invalidator: CacheInvalidator;
  admit: Admit;
  workspaceRoot: string;
  now: () => Date;
}

/** One step of a recorded plan, as the integration-workflow lane answered it. */
interface PlannedStep {
  index: number;
  type: string;
  payload: Record<string, unknown>;
  description: string;
  reroute: string;
}

export const stepRunId = (workflowRunId: string, index: number) => `${workflowRunId}${WORKFLOW_STEP_MARK}${index + 1}`;
export const rerouteRunId = (workflowRunId: string, index: number) => `${stepRunId(workflowRunId, index)}:reroute`;

const RECONCILE_LIMIT = 200;

/** The plan a successful workflow run recorded, or null when its result carries none. */
function planOf(run: RunRecord): PlannedStep[] | null {
  const result = run.result as { steps?: unknown } | null;
  if (!result || !Array.isArray(result.steps)) return null;
  const steps: PlannedStep[] = [];
  for (const raw of result.steps as Array<Record<string, unknown>>) {
    if (typeof raw !== 'object' || raw === null || typeof raw.type !== 'string' || typeof raw.index !== 'number') return null;
    steps.push({
      index: raw.index,
      type: raw.type,
      payload: typeof raw.payload === 'object' && raw.payload !== null ? (raw.payload as Record<string, unknown>) : {},
      description: typeof raw.description === 'string' ? raw.description : raw.type,
      reroute: typeof raw.reroute === 'string' ? raw.reroute : incidentTriageType.type,
    });
  }
  return steps;
}

/**
 * Drives integration workflows: the lane only plans; this module admits the steps as child runs
 * through the one admission path, one after another, and reroutes a failed step. It keeps no
 * state of its own: every call derives the workflow's progress from the runs in the store and
 * admits under run ids derived from the workflow's (`<workflow>:step-N`, `…:reroute`), so calling
 * it twice, after a crash, or from two instances admits nothing twice. A step an operator
 * cancelled stops the workflow where it is: the later steps are skipped and nothing is rerouted
 * (a cancel is a decision, not a failure to triage).
 */
export function createWorkflowDriver(deps: WorkflowDriverDeps) {
  const { store } = deps;

  /** Where a child stands; an approved child's work is its replay run, so it follows the replay. */
  async function stateOf(child: RunRecord): Promise<WorkflowStepState> {
    if (child.approval.replayRunId) {
      const replay = await store.getRun(child.approval.replayRunId);
      return replay ? stateOf(replay) : 'queued';
    }
    switch (child.status) {
      case 'pending':
        return child.queueState === 'held' ? 'awaiting-approval' : 'queued';
      case 'running':
        return 'running';
      case 'retrying':
        return 'retrying';
      case 'success':
        return 'success';
      case 'failed':
        return 'failed';
      case 'cancelled':
        return 'cancelled';
      // Flow step words: a workflow's children are never flow steps.
      case 'waiting':
        return 'waiting';
      case 'skipped':
        return 'skipped';
    }
  }

  /** Refusal reason of a step the service would not admit from a client either, or null. */
  function refusalOf(type: string, payload: Record<string, unknown>): string | null {
    try {
      const checked = checkTaskRequest({ type, payload });
      const scope = checkPayloadScopes(checked.entry, checked.payload, deps.workspaceRoot);
      return scope.length > 0 ? `scope outside the workspace: ${scope.map((d) => d.path).join(', ')}` : null;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const details = Array.isArray(err.details) ? (err.details as Array<{ path: string; message: string }>) : [];
      return [err.message, ...details.map((d) => `${d.path} ${d.message}`)].join('; ');
    }
  }

  async function ensureChild(
    workflow: RunRecord,
    role: WorkflowChild['role'],
    step: PlannedStep,
    type: string,
    payload: Record<string, unknown>,
  ): Promise<{ run: RunRecord | null; refusal: string | null }> {
    const runId = role === 'step' ? stepRunId(workflow.runId, step.index) : rerouteRunId(workflow.runId, step.index);
    const existing = await store.getRun(runId);
    if (existing) return { run: existing, refusal: null };
    const refusal = refusalOf(type, payload);
    if (refusal) return { run: null, refusal };
    const requestedBy = `workflow:${workflow.runId}`;
    const outcome = await deps.admit({
      type,
      payload,
      source: 'workflow',
      requestedBy,
      // The steps are the workflow's work: whoever asked for the workflow asks for them.
      requesters: actorList([requestedBy], requestersOf(workflow)),
      forceRunId: runId,
      workflowParent: { runId: workflow.runId, stepIndex: step.index, role },
    });
    return { run: outcome.run, refusal: null };
  }

  function childOf(step: PlannedStep, role: WorkflowChild['role'], runId: string, state: WorkflowStepState, detail: string | null): WorkflowChild {
    return {
      stepIndex: step.index,
      role,
      type: role === 'step' ? step.type : step.reroute,
      description: role === 'step' ? step.description : `reroute of failed step ${step.index + 1} (${step.type})`,
      runId,
      state,
      detail,
      updatedAt: deps.now().toISOString(),
    };
  }

  async function advance(workflowRunId: string): Promise<void> {
    const workflow = await store.getRun(workflowRunId);
    if (!workflow || workflow.type !== WORKFLOW_TYPE || workflow.status !== 'success') return;
    const plan = planOf(workflow);
    if (!plan) return;

    const children: WorkflowChild[] = [];
    let blocked = false;
    let failed: PlannedStep | null = null;
    let cancelled = false;
    for (const step of plan) {
      const runId = stepRunId(workflow.runId, step.index);
      if (failed || blocked || cancelled) {
        children.push(childOf(step, 'step', runId, failed || cancelled ? 'skipped' : 'waiting', null));
        continue;
      }
      const { run, refusal } = await ensureChild(workflow, 'step', step, step.type, step.payload);
      const state = run ? await stateOf(run) : 'refused';
      children.push(childOf(step, 'step', runId, state, refusal));
      if (state === 'failed' || state === 'refused') failed = step;
      else if (state === 'cancelled') cancelled = true;
      else if (state !== 'success') blocked = true;
    }
    if (failed) {
      // The reroute gets the failed step's identity in its description only: every reroute lane
      // (triage, monitoring) reads the failure itself from the control plane.
      const { run, refusal } = await ensureChild(workflow, 'reroute', failed, failed.reroute, {});
      const state = run ? await stateOf(run) : 'refused';
      children.push(childOf(failed, 'reroute', rerouteRunId(workflow.runId, failed.index), state, refusal));
    }

    const written = await store.mutateRun(workflow.runId, (current) => {
      if (!current) return null;
      const before = (current.workflowChildren ?? []).map((c) => `${c.runId}|${c.state}|${c.detail}`).join(',');
      const after = children.map((c) => `${c.runId}|${c.state}|${c.detail}`).join(',');
      return before === after ? null : { ...current, workflowChildren: children };
    });
    if (written.changed && written.after) await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
  }

  /** Called for every finished run: a workflow that planned, or a child of one, moves the workflow on. */
  async function onRunFinished(run: RunRecord): Promise<void> {
    const workflowRunId = run.type === WORKFLOW_TYPE ? run.runId : run.workflowParent?.runId;
    if (!workflowRunId) return;
    try {
      await advance(workflowRunId);
    } catch (err) {
      // The next finished child or the restart reconcile moves it on; the run itself is recorded.
      deps.logger.error({ err, workflowRunId }, 'workflow could not advance');
    }
  }

  /** Restart: moves on every recent workflow whose steps are not all settled (a crash may have cut a step's hand-off). */
  async function reconcile(): Promise<number> {
    const { items } = await store.listRuns({ type: WORKFLOW_TYPE, status: 'success', limit: RECONCILE_LIMIT });
    const settled: ReadonlySet<WorkflowStepState> = new Set(['success', 'failed', 'refused', 'skipped', 'cancelled']);
    let advanced = 0;
    for (const run of items) {
      const children = run.workflowChildren;
      if (children && children.length > 0 && children.every((c) => settled.has(c.state))) continue;
      await onRunFinished(run);
      advanced += 1;
    }
    return advanced;
  }

  return { advance, onRunFinished, reconcile };
}

export type WorkflowDriver = ReturnType<typeof createWorkflowDriver>;
