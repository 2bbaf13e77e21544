import type { RunRecord } from '../domain/run-record.js';
import { sendDigestType } from '../lanes/send-digest/definition.js';
import { startupType } from '../lanes/startup/definition.js';

/** The milestones collection keeps the newest this many records. */
export const MILESTONE_RETENTION = 500;

export const MILESTONE_KINDS = ['startup', 'drift-repair', 'proof-delivery'] as const;
export type MilestoneKind = (typeof MILESTONE_KINDS)[number];

/** `completed` is proof delivered; the other three are the dead-letter feed. */
export const MILESTONE_STATUSES = ['completed', 'at-risk', 'blocked', 'failed'] as const;
export type MilestoneStatus = (typeof MILESTONE_STATUSES)[number];
export const DEAD_LETTER_STATUSES: readonly MilestoneStatus[] = ['at-risk', 'blocked', 'failed'];

/**
 * One record of the `milestones` store collection. It is protected data (it names the run and
 * may quote a reason); the public feeds publish only what src/proof/public-fields.ts allows.
 */
export interface MilestoneRecord {
  [key: string]: unknown;
  milestoneId: string;
  kind: MilestoneKind;
  status: MilestoneStatus;
  at: string;
  runId: string;
  summary: string;
  /** drift-repair (written by the repair loop): the repair evidence. */
  repairId?: string | null;
  classification?: string | null;
  verificationStatus?: string | null;
  filesAudited?: number;
  driftDetected?: boolean;
  knowledgePackRegenerated?: boolean;
  knowledgePackVersion?: number | null;
  /** Why the milestone is not `completed` (protected: may quote an error). */
  reason?: string;
}

/**
 * The milestone a finished run records, or null. startup: every successful start. send-digest: the
 * delivery of the digest, the service's outbound proof. drift-repair milestones are written by
 * the knowledge repair loop (src/knowledge/repair-loop.ts), which knows the verified outcome.
 */
export function milestoneForRun(run: RunRecord, now: Date): MilestoneRecord | null {
  if (run.status !== 'success' && run.status !== 'failed') return null;
  const at = run.finishedAt ?? now.toISOString();
  if (run.type === startupType.type && run.status === 'success') {
    return {
      milestoneId: `startup:${run.runId}`,
      kind: 'startup',
      status: 'completed',
      at,
      runId: run.runId,
      summary: 'service started; configuration loaded and state initialized',
    };
  }
  if (run.type === sendDigestType.type) {
    const delivered = run.status === 'success';
    return {
      milestoneId: `proof-delivery:${run.runId}#${run.attempt}`,
      kind: 'proof-delivery',
      status: delivered ? 'completed' : 'failed',
      at,
      runId: run.runId,
      summary: delivered ? 'digest delivered to the notification target' : 'digest delivery failed',
      ...(delivered ? {} : { reason: run.error ?? 'failed' }),
    };
  }
  return null;
}
