import type { ToolGateEvidence } from '../tool-gate.js';
import type { GovernedSkill, SkillRegistry } from '../skills.js';
import { assessAgentGovernance } from './governance.js';
import { laneSkillRequirements } from './lane-requirements.js';

/** The agent facts the skill reports read: what a manifest declares. */
export interface SkillReportAgent {
  id: string;
  lanes: readonly string[];
  allowedSkills: readonly string[];
}

export type SkillIntakeRecord = GovernedSkill & {
  grantedTo: string[];
  requiredBy: string[];
};

/** GET /api/skills/registry: every governed skill with who holds it and which lanes need it. */
export function registryReport(registry: SkillRegistry, agents: readonly SkillReportAgent[]) {
  const skills: SkillIntakeRecord[] = registry.list().map((skill) => ({
    ...skill,
    grantedTo: agents.filter((a) => a.allowedSkills.includes(skill.id)).map((a) => a.id),
    requiredBy: Object.entries(laneSkillRequirements())
      .filter(([, ids]) => ids.includes(skill.id))
      .map(([lane]) => lane),
  }));
  return { registryVersion: registry.version, digest: registry.digest, count: skills.length, skills };
}

function countBy<T extends string>(values: readonly T[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

/** GET /api/skills/policy: governance posture of the grants against the lane requirements. */
export function policyReport(registry: SkillRegistry, agents: readonly SkillReportAgent[], laneOwner: (lane: string) => SkillReportAgent | undefined) {
  const skills = registry.list();
  const highRisk = new Set(skills.filter((s) => s.risk === 'high').map((s) => s.id));
  const uncoveredLanes = Object.entries(laneSkillRequirements()).flatMap(([lane, required]) => {
    const owner = laneOwner(lane);
    const missing = required.filter((id) => !owner?.allowedSkills.includes(id));
    const nonExecutable = required.filter((id) => registry.get(id)?.executability !== 'executable');
    if (owner && missing.length === 0 && nonExecutable.length === 0) return [];
    return [{ lane, agentId: owner?.id ?? null, missingSkills: owner ? missing : [...required], nonExecutableSkills: nonExecutable }];
  });
  const assessments = agents.map((a) => assessAgentGovernance({ ...a, runCount: null, lastRunAt: null }, registry));
  const unregisteredGrants = assessments.flatMap((a) => a.unregisteredGrants.map((skillId) => ({ agentId: a.agentId, skillId })));
  const posture = unregisteredGrants.length > 0 || uncoveredLanes.length > 0 ? 'blocked' : assessments.some((a) => a.unusedGrants.length || a.declaredOnlyGrants.length) ? 'watching' : 'clear';
  return {
    posture,
    registryVersion: registry.version,
    skillCount: skills.length,
    byExecutability: countBy(skills.map((s) => s.executability)),
    byRisk: countBy(skills.map((s) => s.risk)),
    byPersistenceMode: countBy(skills.map((s) => s.persistenceMode)),
    highRiskGrants: agents
      .map((a) => ({ agentId: a.id, skills: a.allowedSkills.filter((id) => highRisk.has(id)) }))
      .filter((entry) => entry.skills.length > 0),
    uncoveredLanes,
    unusedGrants: assessments.filter((a) => a.unusedGrants.length > 0).map((a) => ({ agentId: a.agentId, skills: a.unusedGrants })),
    declaredOnlyGrants: assessments
      .filter((a) => a.declaredOnlyGrants.length > 0)
      .map((a) => ({ agentId: a.agentId, skills: a.declaredOnlyGrants })),
    unregisteredGrants,
    agents: assessments.map((a) => ({ agentId: a.agentId, level: a.governanceDepth.level, score: a.governanceDepth.score })),
  };
}

export interface UsageCounters {
  preflightsAllowed: number;
  preflightsRefused: number;
  executionsOk: number;
  executionsFailed: number;
  lastSeenAt: string | null;
}

const emptyCounters = (): UsageCounters => ({ preflightsAllowed: 0, preflightsRefused: 0, executionsOk: 0, executionsFailed: 0, lastSeenAt: null });

const later = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a > b ? a : b);

/** The newest moment a record speaks of: its execute record when it has one, else its preflight. */
export function evidenceTime(e: ToolGateEvidence): string {
  return later(e.preflight.checkedAt, e.execute?.recordedAt ?? null) ?? e.preflight.checkedAt;
}

function tally(counters: UsageCounters, e: ToolGateEvidence, executed: boolean): void {
  if (e.preflight.decision === 'allowed') counters.preflightsAllowed += 1;
  else counters.preflightsRefused += 1;
  if (executed && e.execute) {
    if (e.execute.ok) counters.executionsOk += 1;
    else counters.executionsFailed += 1;
  }
  counters.lastSeenAt = later(counters.lastSeenAt, evidenceTime(e));
}

/**
 * GET /api/skills/telemetry. A skill counts a preflight when the lane required it, and an
 * execution when the run exercised it; a lane counts every one of its records.
 */
export function telemetryReport(registry: SkillRegistry, evidence: readonly ToolGateEvidence[]) {
  const bySkill = new Map<string, UsageCounters>(registry.list().map((s) => [s.id, emptyCounters()]));
  const byLane = new Map<string, UsageCounters>(Object.keys(laneSkillRequirements()).map((lane) => [lane, emptyCounters()]));
  for (const e of evidence) {
    const exercised = new Set(e.execute?.skillsExercised ?? []);
    for (const id of e.preflight.requiredSkills) {
      if (!bySkill.has(id)) bySkill.set(id, emptyCounters());
      tally(bySkill.get(id)!, e, exercised.has(id));
    }
    if (!byLane.has(e.taskType)) byLane.set(e.taskType, emptyCounters());
    tally(byLane.get(e.taskType)!, e, true);
  }
  return {
    evidenceCount: evidence.length,
    skills: [...bySkill].map(([skillId, c]) => ({ skillId, registered: registry.get(skillId) !== undefined, ...c })),
    lanes: [...byLane].map(([taskType, c]) => ({ taskType, ...c })),
  };
}

/** GET /api/skills/audit: the newest evidence records first, at most `limit`. */
export function auditReport(evidence: readonly ToolGateEvidence[], limit: number) {
  const items = [...evidence].sort((a, b) => (evidenceTime(a) < evidenceTime(b) ? 1 : evidenceTime(a) > evidenceTime(b) ? -1 : 0)).slice(0, limit);
  return { total: evidence.length, limit, count: items.length, items };
}
