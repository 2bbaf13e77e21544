import { BUILT_IN_REGISTRY } from '../lanes/built-in.js';
import type { ActionKind } from './registry-schema.js';

/**
 * The lanes the business planner may ever enqueue on its own: bounded, local, read-only or
 * text-only work inside the service, as each type module says (`plannerSafe`). A registry's
 * approval policy can narrow this list, never widen it. Lanes that reach the network, change
 * code, deploy or send anything are absent.
 */
export const SAFE_INTERNAL_TASK_TYPES: readonly string[] = BUILT_IN_REGISTRY.all()
  .filter((t) => t.plannerSafe)
  .map((t) => t.type);

/** Why each non-internal action kind is never enqueued by the planner. */
export const APPROVAL_GATED_KINDS: Readonly<Record<Exclude<ActionKind, 'internal-task'>, string>> = {
  outreach: 'outreach to people outside the service needs an operator',
  publishing: 'publishing needs an operator',
  deployment: 'deployment needs an operator',
  'secret-access': 'secret access needs an operator',
  'private-source-access': 'private-source access needs an operator',
  'commercial-commitment': 'commercial commitments need an operator',
};

export function isSafeInternalTaskType(type: string): boolean {
  return SAFE_INTERNAL_TASK_TYPES.includes(type);
}
