import { ProgrammingError } from '../domain/errors.js';
import type { SpecialistContract } from '../domain/run-record.js';
import type { ModelAccess } from './model.js';

export type { SpecialistContract } from '../domain/run-record.js';

/** Where a specialist ended up: done, done in part, declined the work, or handed it up. */
export type SpecialistStatus = 'completed' | 'partial' | 'refused' | 'escalated';

/** What a lane function receives besides its payload. */
export interface LaneContext {
  /** Absolute workspace root; every path in a payload is relative to it. */
  workspaceRoot: string;
  runId: string | null;
  /** The attempt's way to a model through the service (model.ts); absent, the lane has none. */
  model?: ModelAccess;
}

/**
 * The fields every worker lane answers with (DECISIONS "Lane payloads and results"). Result
 * shapes are type aliases rather than interfaces so they stay assignable to the
 * `Record<string, unknown>` a lane returns.
 */
export type LaneResultBase = {
  success: boolean;
  operatorSummary: string;
  recommendedNextActions: string[];
  specialistContract: SpecialistContract;
};

/** A lane's answer: the shared fields plus the lane's own. */
export type LaneResult<Fields extends object = Record<string, unknown>> = LaneResultBase & Fields;

export type LaneRefusal = LaneResultBase & {
  success: false;
  error: string;
};

/** Who the specialist is and what it delivers; fixed per lane. */
export interface SpecialistIdentity {
  role: string;
  workflowStage: string;
  deliverable: string;
}

export interface SpecialistContractInput extends SpecialistIdentity {
  status?: SpecialistStatus;
  refusalReason?: string | null;
  escalationReason?: string | null;
}

/**
 * Builds a specialistContract. A refusal without a refusal reason (or an escalation without an
 * escalation reason) is a programming error: an operator reading the run must learn why.
 */
export function specialistContract(input: SpecialistContractInput): SpecialistContract {
  const status = input.status ?? 'completed';
  const refusalReason = input.refusalReason ?? null;
  const escalationReason = input.escalationReason ?? null;
  if (status === 'refused' && !refusalReason) throw new ProgrammingError('a refused specialistContract needs a refusalReason');
  if (status === 'escalated' && !escalationReason) {
    throw new ProgrammingError('an escalated specialistContract needs an escalationReason');
  }
  return {
    role: input.role,
    workflowStage: input.workflowStage,
    deliverable: input.deliverable,
    status,
    refusalReason,
    escalationReason,
  };
}

/** The answer of a lane that declines its input: `success: false` with the reason in every field that carries one. */
export function refuseLane(
  identity: SpecialistIdentity,
  reason: string,
  recommendedNextActions: string[],
): LaneRefusal {
  return {
    success: false,
    error: reason,
    operatorSummary: `Refused: ${reason}`,
    recommendedNextActions,
    specialistContract: specialistContract({ ...identity, status: 'refused', refusalReason: reason }),
  };
}
