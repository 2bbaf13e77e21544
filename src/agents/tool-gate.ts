import type { ExecuteEvidence, ToolGatePreflight } from '../domain/run-record.js';
import { laneSkills, type SkillRegistry } from './skills.js';

export type { ExecuteEvidence, ToolGateDecision, ToolGatePreflight } from '../domain/run-record.js';

/** One tool-gated run: its preflight and, when the lane ran, its execute record. */
export interface ToolGateEvidence {
  runId: string;
  taskType: string;
  agentId: string;
  preflight: ToolGatePreflight;
  execute: ExecuteEvidence | null;
}

export interface ToolGateInput {
  taskType: string;
  agent: { id: string; allowedSkills: readonly string[] };
  registry: SkillRegistry;
  now: string;
}

function refusalReason(taskType: string, agentId: string, p: Pick<ToolGatePreflight, 'missingSkills' | 'nonExecutableSkills' | 'unregisteredSkills'>): string | null {
  const parts: string[] = [];
  if (p.unregisteredSkills.length) parts.push(`requires unregistered skill(s) ${p.unregisteredSkills.join(', ')}`);
  if (p.missingSkills.length) parts.push(`agent ${agentId} is not granted ${p.missingSkills.join(', ')}`);
  if (p.nonExecutableSkills.length) parts.push(`nothing in this build executes ${p.nonExecutableSkills.join(', ')}`);
  return parts.length ? `tool gate refused ${taskType}: ${parts.join('; ')}` : null;
}

/**
 * The tool-gate preflight, pure: a tool-gated lane may run only when its agent is granted every
 * skill the lane exercises, and each of those skills is registered and executable. A task type
 * with no requirement record is refused: an unrecorded lane cannot be shown to stay in bounds.
 */
export function preflightToolGate(input: ToolGateInput): ToolGatePreflight {
  const { taskType, agent, registry, now } = input;
  const grantedSkills = [...agent.allowedSkills];
  const requirement = laneSkills(taskType);
  if (requirement === undefined) {
    return {
      decision: 'refused',
      taskType,
      agentId: agent.id,
      requiredSkills: [],
      grantedSkills,
      missingSkills: [],
      nonExecutableSkills: [],
      unregisteredSkills: [],
      reason: `tool gate refused ${taskType}: the lane has no skill requirement record`,
      checkedAt: now,
    };
  }
  const requiredSkills = [...requirement];
  const granted = new Set(grantedSkills);
  const missingSkills = requiredSkills.filter((id) => !granted.has(id));
  const unregisteredSkills = requiredSkills.filter((id) => registry.get(id) === undefined);
  const nonExecutableSkills = requiredSkills.filter((id) => registry.get(id)?.executability === 'declared');
  const reason = refusalReason(taskType, agent.id, { missingSkills, nonExecutableSkills, unregisteredSkills });
  return {
    decision: reason === null ? 'allowed' : 'refused',
    taskType,
    agentId: agent.id,
    requiredSkills,
    grantedSkills,
    missingSkills,
    nonExecutableSkills,
    unregisteredSkills,
    reason,
    checkedAt: now,
  };
}

/** The execute record of a run that passed (or was refused by) its preflight. */
export function executeEvidence(
  preflight: ToolGatePreflight,
  outcome: { ok: boolean; durationMs: number; failureReason: string | null },
  now: string = new Date().toISOString(),
): ExecuteEvidence {
  const allowed = preflight.decision === 'allowed';
  return {
    skillsExercised: allowed ? [...preflight.requiredSkills] : [],
    ok: allowed && outcome.ok,
    durationMs: Math.max(0, Math.round(outcome.durationMs)),
    failureReason: allowed ? (outcome.ok ? null : (outcome.failureReason ?? 'failed without a reason')) : preflight.reason,
    recordedAt: now,
  };
}
