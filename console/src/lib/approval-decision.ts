import { approvalProgressText, type DecisionAnswer, type PendingApproval } from '../../../src/runtime/approval-answer.js';

/*
 * What the approvals page needs beyond the answers themselves: the form fields of a type's
 * approval input schema, the input a decision sends, and the sentence that reports a decision.
 * Pure, so it is tested without a browser.
 */

/** One field of an approval input form, read from the schema's top-level properties. */
export interface ApprovalInputField {
  name: string;
  description: string;
  kind: 'string' | 'number' | 'integer' | 'boolean';
  pattern?: string;
  maxLength?: number;
}

interface PropertySchema {
  type?: unknown;
  description?: unknown;
  pattern?: unknown;
  maxLength?: unknown;
}

const KINDS = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The fields an approver can fill in, in the schema's order. Properties of other shapes
 * (objects, lists) have no form field here: the API takes them.
 */
export function approvalInputFields(schema: PendingApproval['approvalInputSchema']): ApprovalInputField[] {
  const properties = (schema?.properties ?? {}) as Record<string, PropertySchema>;
  const fields: ApprovalInputField[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property.type !== 'string' || !KINDS.has(property.type)) continue;
    fields.push({
      name,
      description: typeof property.description === 'string' ? property.description : '',
      kind: property.type as ApprovalInputField['kind'],
      ...(typeof property.pattern === 'string' ? { pattern: property.pattern } : {}),
      ...(typeof property.maxLength === 'number' ? { maxLength: property.maxLength } : {}),
    });
  }
  return fields;
}

/**
 * The `input` of an approval from what the form holds: blank fields are left out (the held
 * payload keeps its value), numbers and booleans are sent as such; null when nothing was filled
 * in. A value that is not a number stays text so the service names the field in its 400.
 */
export function approvalInputBody(fields: ApprovalInputField[], values: Record<string, string>): Record<string, unknown> | null {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = (values[field.name] ?? '').trim();
    if (raw === '') continue;
    if (field.kind === 'boolean') input[field.name] = raw === 'true';
    else if (field.kind === 'number' || field.kind === 'integer') input[field.name] = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else input[field.name] = raw;
  }
  return Object.keys(input).length > 0 ? input : null;
}

/** The approval's progress where the policy asks for more than one approval ("1 of 2 approvals"), else null. */
export function quorumProgress(item: Pick<PendingApproval, 'approvals'>): string | null {
  return item.approvals.required > 1 ? approvalProgressText(item.approvals) : null;
}

/** Whether `actor` already decided the approval (each approver decides once). */
export const alreadyDecidedBy = (item: Pick<PendingApproval, 'decisionHistory'>, actor: string): boolean =>
  item.decisionHistory.some((e) => e.actor === actor && (e.decision === 'approved' || e.decision === 'rejected'));

/** The sentence the page shows after a decision: recorded short of the quorum, or decided. */
export function decisionOutcome(runId: string, answer: DecisionAnswer, fallback: string): string {
  const { approval } = answer;
  if (approval.status === 'pending') return `Recorded your approval of ${runId}: ${approvalProgressText(approval.approvals)}`;
  return `Decided ${runId}: ${approval.status ?? fallback} by ${approval.decidedBy ?? 'you'}${answer.replayRunId ? `; replay run ${answer.replayRunId}` : ''}`;
}
