import { createHash } from 'node:crypto';

/** The longest flow id (flow-definition.ts FLOW_NAME_PATTERN: 100 characters). */
const MAX_FLOW_ID_LENGTH = 100;

/**
 * The flow id of one firing of a flow schedule: every instance firing the same tick names the
 * same flow, whose insert-if-absent admits it once. Flow ids hold no colon (they are part of step
 * run ids), so the time is written compact; an id too long for a flow id is shortened with a hash
 * of it, so two schedules never share one.
 */
export function scheduledFlowId(scheduleId: string, fireAt: Date): string {
  const at = fireAt.toISOString().replace(/[-:]/g, '');
  const plain = `${scheduleId}.${at}`;
  if (plain.length <= MAX_FLOW_ID_LENGTH) return plain;
  const hash = createHash('sha256').update(scheduleId).digest('hex').slice(0, 16);
  return `${scheduleId.slice(0, MAX_FLOW_ID_LENGTH - at.length - hash.length - 2)}-${hash}.${at}`;
}
