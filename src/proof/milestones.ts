import type { RunRecord } from '../tasks/types.js';

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
  /** drift-repair: the repair evidence the run recorded, when present. */
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

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown) => (typeof v === 'boolean' ? v : undefined);

/** The repair evidence of a drift-repair run: on the run (`repair`) or in its result. */
function repairOf(run: RunRecord): Record<string, unknown> {
  const onRun = record((run as unknown as Record<string, unknown>).repair);
  return Object.keys(onRun).length > 0 ? onRun : record(record(run.result).repair);
}

function driftRepairMilestone(run: RunRecord, at: string): MilestoneRecord {
  const result = record(run.result);
  const repair = repairOf(run);
  const verification = str(repair.status) ?? str(record(result.verification).status);
  const regenerated = bool(result.knowledgePackRegenerated);
  const base = {
    milestoneId: `drift-repair:${run.runId}#${run.attempt}`,
    kind: 'drift-repair' as const,
    at,
    runId: run.runId,
    repairId: str(repair.repairId),
    classification: str(repair.classification),
    verificationStatus: verification,
    filesAudited: num(result.filesAudited),
    driftDetected: bool(result.driftDetected),
    knowledgePackRegenerated: regenerated,
    knowledgePackVersion: num(record(result.knowledgePack).version) ?? null,
  };
  if (run.status === 'failed') {
    return { ...base, status: 'failed', summary: 'drift repair failed', reason: run.error ?? run.failureReason ?? 'failed' };
  }
  // A repair whose pack was not regenerated or whose verification did not pass leaves the proof at risk.
  const unverified = verification !== null && /fail|unverified|mismatch|blocked/i.test(verification);
  if (regenerated === false || unverified) {
    return { ...base, status: 'at-risk', summary: 'drift repair finished without a verified knowledge pack', reason: verification ?? 'knowledge pack not regenerated' };
  }
  return { ...base, status: 'completed', summary: 'drift repair regenerated and verified the knowledge pack' };
}

/**
 * The milestone a finished run records, or null. startup: every successful start. drift-repair:
 * every final outcome (a run waiting for its automatic retry is not final yet). send-digest: the
 * delivery of the digest, the service's outbound proof.
 */
export function milestoneForRun(run: RunRecord, now: Date): MilestoneRecord | null {
  if (run.status !== 'success' && run.status !== 'failed') return null;
  const at = run.finishedAt ?? now.toISOString();
  if (run.type === 'startup' && run.status === 'success') {
    return {
      milestoneId: `startup:${run.runId}`,
      kind: 'startup',
      status: 'completed',
      at,
      runId: run.runId,
      summary: 'service started; configuration loaded and state initialized',
    };
  }
  if (run.type === 'drift-repair') return driftRepairMilestone(run, at);
  if (run.type === 'send-digest') {
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
