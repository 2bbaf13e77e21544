import { configError } from '../config/errors.js';
import { roleAtLeast } from '../config/keys.js';
import type { ApprovalPolicyEntry } from '../config/schema.js';
import type { Identity } from '../domain/identity.js';
import type { RunRecord } from '../domain/run-record.js';

/** The config key whose entry applies to every task type without one of its own. */
export const DEFAULT_POLICY_KEY = 'default';

/** One task type's approval policy, every field decided. */
export interface ResolvedApprovalPolicy {
  approverRole: 'operator' | 'admin';
  allowSelfApproval: boolean;
  /** null: the approval waits for a decision however long it takes. */
  expiresAfterMinutes: number | null;
  onExpiry: 'reject' | 'escalate';
  /** Distinct eligible actors whose approvals admit the replay; one rejection ends it whatever the count. */
  requiredApprovals: number;
  /** Only keys in one of these groups may decide; empty: any key of `approverRole`. */
  approverGroups: readonly string[];
}

/**
 * Today's behaviour, kept where the config says nothing: one operator decides, self-approval
 * allowed, no expiry, no groups.
 */
export const BUILT_IN_APPROVAL_POLICY: Readonly<ResolvedApprovalPolicy> = Object.freeze({
  approverRole: 'operator',
  allowSelfApproval: true,
  expiresAfterMinutes: null,
  onExpiry: 'reject',
  requiredApprovals: 1,
  approverGroups: Object.freeze([]) as readonly string[],
});

export interface ApprovalPolicy {
  /** The policy of a task type: its own entry's fields, then `default`'s, then the built-in ones. */
  forType(type: string): ResolvedApprovalPolicy;
  /** When an approval requested at `requestedAt` expires; null when the type's approvals never do. */
  expiresAtFor(type: string, requestedAt: Date): string | null;
}

/**
 * Builds the approval policy from config `approvalPolicy`. A key that is neither `default` nor a
 * task type of the catalog is an `invalid_config` error: a misspelt type would otherwise leave
 * its approvals under the default policy without anyone noticing.
 */
export function createApprovalPolicy(configured: Record<string, ApprovalPolicyEntry>, knownTypes: readonly string[]): ApprovalPolicy {
  const unknown = Object.keys(configured).filter((key) => key !== DEFAULT_POLICY_KEY && !knownTypes.includes(key));
  if (unknown.length > 0) {
    throw configError(
      `approvalPolicy: ${unknown.map((k) => `"${k}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a task type of the catalog (keys are task types or "${DEFAULT_POLICY_KEY}")`,
    );
  }
  const fallback = configured[DEFAULT_POLICY_KEY] ?? {};
  const resolved = new Map<string, ResolvedApprovalPolicy>();
  function forType(type: string): ResolvedApprovalPolicy {
    let policy = resolved.get(type);
    if (!policy) {
      const own = Object.hasOwn(configured, type) ? configured[type]! : {};
      policy = Object.freeze({
        approverRole: own.approverRole ?? fallback.approverRole ?? BUILT_IN_APPROVAL_POLICY.approverRole,
        allowSelfApproval: own.allowSelfApproval ?? fallback.allowSelfApproval ?? BUILT_IN_APPROVAL_POLICY.allowSelfApproval,
        expiresAfterMinutes: own.expiresAfterMinutes ?? fallback.expiresAfterMinutes ?? BUILT_IN_APPROVAL_POLICY.expiresAfterMinutes,
        onExpiry: own.onExpiry ?? fallback.onExpiry ?? BUILT_IN_APPROVAL_POLICY.onExpiry,
        requiredApprovals: own.requiredApprovals ?? fallback.requiredApprovals ?? BUILT_IN_APPROVAL_POLICY.requiredApprovals,
        approverGroups: Object.freeze([...(own.approverGroups ?? fallback.approverGroups ?? BUILT_IN_APPROVAL_POLICY.approverGroups)]),
      });
      resolved.set(type, policy);
    }
    return policy;
  }
  return {
    forType,
    expiresAtFor(type, requestedAt) {
      const minutes = forType(type).expiresAfterMinutes;
      return minutes === null ? null : new Date(requestedAt.getTime() + Math.round(minutes * 60_000)).toISOString();
    },
  };
}

/** The policy of a service without configured approval rules (and of tests that set none). */
export const builtInApprovalPolicy: ApprovalPolicy = createApprovalPolicy({}, []);

/** Who asked for the held run: the approval's own record, or the run's requester for records from before it kept one. */
export const approvalRequesterOf = (run: RunRecord): string => run.approval.requestedBy ?? run.requestedBy;

/**
 * Every actor the held work is requested by (its key's actor and whoever shaped the work), as
 * the approval recorded them; an approval held before it kept the list has its requester alone.
 */
export const approvalRequestersOf = (run: RunRecord): string[] => run.approval.requesters ?? [approvalRequesterOf(run)];

/**
 * Why `identity` may not decide the held run, or null when it may. The approver role, the
 * approver groups and the self-approval rule apply to either decision: a requester who wants the
 * work gone cancels the run instead of rejecting their own request, and a requester's approval
 * never counts toward a quorum where self-approval is off.
 */
export function decisionRefusal(policy: ResolvedApprovalPolicy, run: RunRecord, identity: Identity): string | null {
  if (!roleAtLeast(identity.role, policy.approverRole)) {
    return `deciding a ${run.type} approval needs the ${policy.approverRole} role (approvalPolicy); ${identity.actor} is ${identity.role}`;
  }
  if (policy.approverGroups.length > 0 && !policy.approverGroups.some((g) => identity.groups?.includes(g))) {
    return `deciding a ${run.type} approval needs a key in one of the approver groups ${policy.approverGroups.join(', ')} (approvalPolicy); ${identity.actor}'s key has ${identity.groups?.length ? identity.groups.join(', ') : 'none'}`;
  }
  const requesters = approvalRequestersOf(run);
  if (!policy.allowSelfApproval && requesters.includes(identity.actor)) {
    return `${identity.actor} requested this ${run.type} run and approvalPolicy does not allow self-approval for ${run.type}: another ${policy.approverRole} must decide it (its requesters: ${requesters.join(', ')})`;
  }
  return null;
}

/** Whether a still-pending approval has passed its expiry at `now`. */
export function approvalExpired(run: RunRecord, now: Date): boolean {
  const expiresAt = run.approval.expiresAt;
  return run.approval.status === 'pending' && typeof expiresAt === 'string' && Date.parse(expiresAt) <= now.getTime();
}
