import { DomainError, invalidRequest, pointer, pointerSegment, type ErrorDetail } from '../domain/errors.js';
import type { RunRecord } from '../domain/run-record.js';
import { schemaProblems } from '../task-types/schema-check.js';
import type { TaskType } from '../task-types/task-type.js';
import { decisionHistoryOf } from './approval-transitions.js';
import { payloadProblems } from '../lanes/payload-check.js';
import { RESERVED_PAYLOAD_FIELDS } from './payload-validation.js';

/**
 * Approve with input: a type that declares an approval input schema lets each approver add
 * fields to the replay's payload (a deploy's target, a reviewer's note). The input is checked
 * like a trigger's payload (reserved fields first, then the schema) and kept on the approver's
 * decision entry; the replay's payload is the held payload with every approver's input merged
 * over it in decision order.
 */

const INPUT_PATH = pointer('body', 'input');

/**
 * Payload fields an approver may never set, besides the service's `__` keys and the approval
 * linkage: the run id to be (`idempotencyKey`) and whether the work needs approval at all.
 */
const RESERVED_INPUT_FIELDS: readonly string[] = [...RESERVED_PAYLOAD_FIELDS, 'idempotencyKey', 'requiresApproval'];

function reservedInputDetails(input: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(input)) {
    const path = `${INPUT_PATH}/${pointerSegment(key)}`;
    if (key.startsWith('__')) details.push({ path, message: 'fields starting with __ are reserved for the service' });
    else if (RESERVED_INPUT_FIELDS.includes(key)) details.push({ path, message: 'is set by the service or the requester, never by an approver' });
  }
  return details;
}

/**
 * Refuses an input the decision may not carry: on a rejection (nothing is replayed), with a
 * reserved field (400 `reserved_field`, as in a trigger), for a type without an approval input
 * schema, against that schema, or when the payload it would make is no longer valid for the type.
 */
export function checkApprovalInput(type: TaskType | undefined, run: RunRecord, decision: 'approved' | 'rejected', input: Record<string, unknown>): void {
  if (decision === 'rejected') {
    throw invalidRequest('input accompanies an approval only: a rejection replays nothing', [{ path: INPUT_PATH, message: 'is not accepted with decision rejected' }]);
  }
  const reserved = reservedInputDetails(input);
  if (reserved.length > 0) throw new DomainError('reserved_field', 'approval input carries fields reserved for the service', reserved);
  const schema = type?.approvalInputSchema;
  if (!schema) {
    throw invalidRequest(`task type '${run.type}' declares no approval input`, [{ path: INPUT_PATH, message: `is not accepted for ${run.type} approvals` }]);
  }
  const problems = schemaProblems(schema, input, INPUT_PATH);
  if (problems.length > 0) throw invalidRequest(`input is not valid approval input for task type '${run.type}'`, problems);
  const merged = payloadProblems(run.type, { ...approvedPayload(run), ...input });
  if (merged.length > 0) {
    throw invalidRequest(`input would make the ${run.type} payload invalid`, merged.map((d) => ({ ...d, path: `${INPUT_PATH}${d.path}` })));
  }
}

/** The payload the replay runs on: the held payload with each approver's input over it, oldest first. */
export function approvedPayload(run: RunRecord): Record<string, unknown> {
  let payload = run.payload;
  for (const entry of decisionHistoryOf(run.approval)) {
    if (entry.decision === 'approved' && entry.input) payload = { ...payload, ...entry.input };
  }
  return payload;
}
