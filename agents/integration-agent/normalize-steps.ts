import { getCatalogEntry } from '../../src/runtime/catalog.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';

/** A step as the schema admits it: shorthand `'<task-type>: <description>'` or an object. */
export type StepInput = NonNullable<LanePayload<'integration-workflow'>['steps']>[number];

export interface NormalizedStep {
  index: number;
  type: string;
  payload: Record<string, unknown>;
  description: string;
  /** Where the workflow goes when this step fails: a task type, run with a payload naming the failed step. */
  reroute: string;
  /** `shorthand`, `object` or `default` (the fallback workflow). */
  origin: 'shorthand' | 'object' | 'default';
}

export interface StepProblem {
  index: number;
  problem: string;
}

/** The reroute of a failed step when the step names none: triage ranks the failure for an operator. */
export const DEFAULT_REROUTE = 'incident-triage';

/** Task types a workflow may not start: itself (no recursion) and the planners that start work of their own. */
const NOT_A_STEP = new Set(['integration-workflow', 'business-value-cycle', 'autonomous-intake-cycle', 'autonomous-work-cycle']);

/**
 * The workflow of an empty submission: read-only checks of the control plane, in the order an
 * operator would run them (health, then what is failing, then the fused brief).
 */
export const DEFAULT_WORKFLOW: readonly string[] = [
  'system-monitor: check service and host health',
  'incident-triage: rank what is failing or waiting',
  'control-plane-brief: summarise the control plane for the operator',
];

const SHORTHAND = /^\s*([a-z][a-z0-9-]*)\s*:\s*(.*)$/s;

function checkType(type: string, field: string): string | null {
  const entry = getCatalogEntry(type);
  if (!entry) return `${field} '${type}' is not a task type of the catalog`;
  if (entry.internalOnly) return `${field} '${type}' is internal-only and cannot be a workflow step`;
  if (NOT_A_STEP.has(type)) return `${field} '${type}' cannot run inside a workflow`;
  return null;
}

function fromShorthand(text: string): { type: string; description: string } | null {
  const match = SHORTHAND.exec(text);
  if (!match) return null;
  return { type: match[1]!, description: match[2]!.trim() };
}

/**
 * Turns the submitted steps into explicit ones, or explains why it cannot. Every problem is
 * reported (not only the first) so an operator fixes the workflow in one go; a workflow with any
 * problem starts nothing.
 */
export function normalizeSteps(steps: readonly StepInput[] | undefined): { steps: NormalizedStep[]; problems: StepProblem[] } {
  const usingDefault = steps === undefined || steps.length === 0;
  const inputs: readonly StepInput[] = usingDefault ? DEFAULT_WORKFLOW : steps;
  const normalized: NormalizedStep[] = [];
  const problems: StepProblem[] = [];
  inputs.forEach((input, index) => {
    let type: string;
    let description: string;
    let payload: Record<string, unknown> = {};
    let reroute = DEFAULT_REROUTE;
    if (typeof input === 'string') {
      const parsed = fromShorthand(input);
      if (!parsed) {
        problems.push({ index, problem: `step '${input}' is not of the form '<task-type>: <description>'` });
        return;
      }
      ({ type, description } = parsed);
    } else {
      type = input.type;
      description = input.description?.trim() || `run ${input.type}`;
      payload = { ...(input.payload ?? {}) };
      if (input.reroute !== undefined) reroute = input.reroute;
    }
    const typeProblem = checkType(type, 'type');
    if (typeProblem) problems.push({ index, problem: typeProblem });
    const rerouteProblem = checkType(reroute, 'reroute');
    if (rerouteProblem) problems.push({ index, problem: rerouteProblem });
    normalized.push({
      index,
      type,
      payload,
      description,
      reroute,
      origin: usingDefault ? 'default' : typeof input === 'string' ? 'shorthand' : 'object',
    });
  });
  return { steps: normalized, problems };
}
