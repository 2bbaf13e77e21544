import { getTaskType } from '../runtime/catalog.js';
import type { ActionKind } from './registry-schema.js';


/** Why each non-internal action kind is never enqueued by the planner. */
export const APPROVAL_GATED_KINDS: Readonly<Record<Exclude<ActionKind, 'internal-task'>, string>> = {
  outreach: 'outreach to people outside the service needs an operator',
  publishing: 'publishing needs an operator',
  deployment: 'deployment needs an operator',
  'secret-access': 'secret access needs an operator',
  'private-source-access': 'private-source access needs an operator',
  'commercial-commitment': 'commercial commitments need an operator',
};

/**
 * Whether the business planner may enqueue a lane on its own: bounded, local, read-only or
 * text-only work inside the service, as its type module says (`plannerSafe`). A registry's
 * approval policy can narrow this, never widen it. Lanes that reach the network, change code,
 * deploy or send anything are never planner-safe.
 */
export function isSafeInternalTaskType(type: string): boolean {
  return getTaskType(type)?.plannerSafe ?? false;
}
