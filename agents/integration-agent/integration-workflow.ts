import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { normalizeSteps, type NormalizedStep } from './normalize-steps.js';

const IDENTITY = { role: 'integration-agent', workflowStage: 'plan-workflow', deliverable: 'ordered workflow of child runs' };

/** The run id a step's child run gets: derived from the workflow's own run, so a replay admits nothing twice. */
export function stepRunId(workflowRunId: string, index: number): string {
  return `${workflowRunId}:step-${index + 1}`;
}

export type PlannedStep = NormalizedStep & { runId: string | null; outcome: 'planned' };

export type WorkflowPlan = LaneResult<{
  success: true;
  steps: PlannedStep[];
  usedDefaultWorkflow: boolean;
  execution: 'sequential';
}>;

/**
 * integration-workflow: normalizes the submitted steps (shorthand, objects or the default
 * workflow) into an ordered plan. The service, not the worker, admits each step as a child run
 * through its one admission path once this plan is recorded, one after another, and reroutes a
 * failed step (src/runtime/workflow-driver.ts); the steps' live outcomes appear on the run.
 */
export function planIntegrationWorkflow(payload: LanePayload<'integration-workflow'>, context: LaneContext): WorkflowPlan | LaneRefusal {
  const { steps, problems } = normalizeSteps(payload.steps);
  if (problems.length > 0) {
    const reason = problems.map((p) => `step ${p.index + 1}: ${p.problem}`).join('; ');
    return refuseLane(IDENTITY, `the workflow cannot start: ${reason}`, [
      'Fix the listed steps (GET /api/tasks/catalog lists the task types) and trigger the workflow again.',
    ]);
  }
  const planned: PlannedStep[] = steps.map((step) => ({
    ...step,
    runId: context.runId === null ? null : stepRunId(context.runId, step.index),
    outcome: 'planned',
  }));
  const usedDefaultWorkflow = planned.some((s) => s.origin === 'default');
  const names = planned.map((s) => s.type).join(' → ');
  return {
    success: true,
    steps: planned,
    usedDefaultWorkflow,
    execution: 'sequential',
    operatorSummary: `Planned ${planned.length} step${planned.length === 1 ? '' : 's'}${usedDefaultWorkflow ? ' (default workflow)' : ''}: ${names}. Each runs as a child run after the previous one succeeds; a failed step is rerouted.`,
    recommendedNextActions: [
      'Follow the child runs in this run’s workflowGraph.causalLinks (or GET /api/tasks/runs/<child runId>).',
    ],
    specialistContract: specialistContract(IDENTITY),
  };
}
