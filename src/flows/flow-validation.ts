import { DomainError, invalidRequest, pointer, type ErrorDetail } from '../domain/errors.js';
import { requestedPlacement } from '../runtime/placement-schema.js';
import { requestedTags } from '../runtime/tags-schema.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { FLOW_NAME, MAX_FLOW_STEPS, type DependencyFailurePolicy, type FlowStepDefinition } from './flow-definition.js';
import { dependencyOrder } from './flow-graph.js';
import { findReferences, isWellFormedReference } from './flow-references.js';

/** A step as the route hands it over (its shape already checked by the route schema). */
export interface FlowStepRequest {
  key: string;
  type: string;
  payload?: Record<string, unknown>;
  dependsOn?: string[];
  onDependencyFailure?: DependencyFailurePolicy;
  concurrencyKey?: string;
  priority?: number;
  tags?: string[];
}

const stepPath = (index: number, ...rest: string[]) => pointer('body', 'steps', String(index), ...rest);

function refuse(message: string, path: string): never {
  throw invalidRequest(message, [{ path, message }]);
}

/**
 * A step's task request checked as the trigger route checks one (catalog, payload schema,
 * workspace boundary, the lane's admission check), its error re-pointed at the step. A value a
 * `$from` reference stands for is not known yet: problems at a reference are left to the check
 * at promotion (flow-promotion.ts), when it is.
 */
function checkStep(step: FlowStepRequest, index: number, checkTrigger: TriggerCheck): Record<string, unknown> {
  const payload = step.payload ?? {};
  const refPaths = findReferences(payload).map((r) => stepPath(index, 'payload') + r.at);
  const atReference = (path: string) => refPaths.some((ref) => path === ref || path.startsWith(`${ref}/`));
  try {
    return checkTrigger({ type: step.type, payload }).payload;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const details = Array.isArray(err.details) ? (err.details as ErrorDetail[]) : [];
    const moved = details.map((d) => ({ path: d.path.startsWith('/body/') ? stepPath(index) + d.path.slice('/body'.length) : d.path, message: d.message }));
    const left = moved.filter((d) => !atReference(d.path));
    if (refPaths.length > 0 && details.length > 0 && left.length === 0) return payload;
    throw new DomainError(err.code, `step '${step.key}': ${err.message}`, left.length > 0 ? left : moved);
  }
}

/** Each `$from` reference is well formed and names one of the step's own dependencies. */
function checkReferences(step: FlowStepRequest, index: number): void {
  for (const { at, value } of findReferences(step.payload ?? {})) {
    const path = stepPath(index, 'payload') + at;
    if (!isWellFormedReference(value)) refuse(`step '${step.key}': a reference is {"$from": "<key>", "pointer": "/result/..."} and nothing else`, path);
    if (!(step.dependsOn ?? []).includes(value.$from)) {
      refuse(`step '${step.key}' reads '${value.$from}', which is not one of its dependencies (dependsOn)`, `${path}/$from`);
    }
  }
}

/**
 * Checks a whole flow before anything is written: the bound on steps, each key (format,
 * duplicates), each dependency (known, not itself, no cycle), then each step's task request.
 * Answers the steps in dependency order with their defaults filled in. Pure but for the lanes'
 * admission checks behind `checkTrigger`.
 */
export function validateFlowSteps(steps: readonly FlowStepRequest[], checkTrigger: TriggerCheck): FlowStepDefinition[] {
  if (steps.length === 0) refuse('a flow needs at least one step', pointer('body', 'steps'));
  if (steps.length > MAX_FLOW_STEPS) {
    refuse(`a flow has at most ${MAX_FLOW_STEPS} steps; step ${MAX_FLOW_STEPS + 1} ('${steps[MAX_FLOW_STEPS]!.key}') is one too many`, stepPath(MAX_FLOW_STEPS));
  }
  const indexOf = new Map<string, number>();
  steps.forEach((step, index) => {
    if (!FLOW_NAME.test(step.key)) refuse(`step key '${step.key}' must match ${FLOW_NAME.source}`, stepPath(index, 'key'));
    if (indexOf.has(step.key)) refuse(`step key '${step.key}' is used twice (steps ${indexOf.get(step.key)} and ${index})`, stepPath(index, 'key'));
    indexOf.set(step.key, index);
  });
  steps.forEach((step, index) => {
    (step.dependsOn ?? []).forEach((dep, at) => {
      if (dep === step.key) refuse(`step '${step.key}' depends on itself`, stepPath(index, 'dependsOn', String(at)));
      if (!indexOf.has(dep)) refuse(`step '${step.key}' depends on '${dep}', which is no step of this flow`, stepPath(index, 'dependsOn', String(at)));
    });
  });
  const order = dependencyOrder(steps.map((s) => ({ key: s.key, dependsOn: s.dependsOn ?? [] })));
  if (!order.ok) {
    const index = indexOf.get(order.cycle[0]!)!;
    refuse(`steps ${order.cycle.map((k) => `'${k}'`).join(' -> ')} depend on each other in a cycle`, stepPath(index, 'dependsOn'));
  }
  steps.forEach(checkReferences);
  const definitions = steps.map((step, index) => ({
    key: step.key,
    type: step.type,
    payload: checkStep(step, index, checkTrigger),
    dependsOn: [...new Set(step.dependsOn ?? [])],
    onDependencyFailure: step.onDependencyFailure ?? 'fail',
    ...requestedPlacement(step),
    ...requestedTags(step),
  }));
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  return order.keys.map((key) => byKey.get(key)!);
}
