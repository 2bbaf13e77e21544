import type { SkillRegistry } from '../skills.js';
import { laneSkills } from './lane-requirements.js';

export type GovernanceLevel = 'shallow' | 'partial' | 'governed';

/** The facts about one agent that governance is judged on (a manifest or a snapshot entry). */
export interface GovernedAgentInput {
  id: string;
  lanes: readonly string[];
  allowedSkills: readonly string[];
  /** Runs of the agent's lanes in the observed window; null when unknown (no run history at hand). */
  runCount: number | null;
  lastRunAt: string | null;
}

export interface AgentGovernance {
  agentId: string;
  lanes: string[];
  grantedSkills: string[];
  /** Union of the skills of the agent's lanes (their type modules' `skills`). */
  requiredSkills: string[];
  /** Lanes with no requirement record (not tool-gated): their needs cannot be checked. */
  lanesWithoutRequirements: string[];
  /** Required by a lane but not granted: the tool gate refuses that lane. */
  missingSkills: Array<{ lane: string; skillId: string }>;
  /** Granted but required by none of the agent's recorded lanes. */
  unusedGrants: string[];
  highRiskGrants: string[];
  /** Granted skills that nothing in this build executes. */
  declaredOnlyGrants: string[];
  /** Granted ids absent from the registry. */
  unregisteredGrants: string[];
  runCount: number | null;
  lastRunAt: string | null;
  lanesRan: boolean | null;
  governanceDepth: { score: number; level: GovernanceLevel; reasons: string[] };
}

const unique = (ids: Iterable<string>): string[] => [...new Set(ids)];

/**
 * Governance depth, 0..100, four parts:
 * - 40 × coverage: share of required skills the agent is granted (0 when no lane of the agent
 *   has a requirement record: nothing ties its grants to what it does);
 * - 20 × least privilege: share of grants some lane requires (0 without a requirement record);
 * - 20 when every grant is registered and executable (a declared-only grant is authority
 *   nothing uses or checks);
 * - 20 when its lanes ran in the window (grants backed by evidence of use); 10 when unknown.
 * Level: `governed` at 80 or more with nothing missing or unregistered; `partial` at 50 or
 * more; `shallow` below.
 */
function depthOf(g: Omit<AgentGovernance, 'governanceDepth'>): AgentGovernance['governanceDepth'] {
  const reasons: string[] = [];
  const recorded = g.lanes.length > g.lanesWithoutRequirements.length;
  const missingIds = unique(g.missingSkills.map((m) => m.skillId));
  const coverage = !recorded ? 0 : g.requiredSkills.length === 0 ? 1 : (g.requiredSkills.length - missingIds.length) / g.requiredSkills.length;
  const leastPrivilege = !recorded ? 0 : g.grantedSkills.length === 0 ? 1 : (g.grantedSkills.length - g.unusedGrants.length) / g.grantedSkills.length;
  const clean = g.declaredOnlyGrants.length === 0 && g.unregisteredGrants.length === 0 ? 1 : 0;
  const evidence = g.lanesRan === null ? 0.5 : g.lanesRan ? 1 : 0;
  if (!recorded) reasons.push(`no requirement record for ${g.lanesWithoutRequirements.join(', ')}: grants cannot be tied to use`);
  if (missingIds.length) reasons.push(`missing ${missingIds.join(', ')}`);
  if (g.unusedGrants.length && recorded) reasons.push(`unused grants ${g.unusedGrants.join(', ')}`);
  if (g.declaredOnlyGrants.length) reasons.push(`declared-only grants ${g.declaredOnlyGrants.join(', ')}`);
  if (g.unregisteredGrants.length) reasons.push(`unregistered grants ${g.unregisteredGrants.join(', ')}`);
  if (g.lanesRan === false) reasons.push('its lanes have not run in the window');
  const score = Math.round(40 * coverage + 20 * leastPrivilege + 20 * clean + 20 * evidence);
  const level: GovernanceLevel =
    score >= 80 && missingIds.length === 0 && g.unregisteredGrants.length === 0 ? 'governed' : score >= 50 ? 'partial' : 'shallow';
  return { score, level, reasons };
}

/** How far one agent's grants match what its lanes exercise. Pure. */
export function assessAgentGovernance(agent: GovernedAgentInput, registry: SkillRegistry): AgentGovernance {
  const grantedSkills = unique(agent.allowedSkills);
  const granted = new Set(grantedSkills);
  const lanesWithoutRequirements = agent.lanes.filter((lane) => laneSkills(lane) === undefined);
  const requiredSkills = unique(agent.lanes.flatMap((lane) => laneSkills(lane) ?? []));
  const required = new Set(requiredSkills);
  const missingSkills = agent.lanes.flatMap((lane) =>
    (laneSkills(lane) ?? []).filter((id) => !granted.has(id)).map((skillId) => ({ lane, skillId })),
  );
  const recorded = agent.lanes.length > lanesWithoutRequirements.length;
  const base = {
    agentId: agent.id,
    lanes: [...agent.lanes],
    grantedSkills,
    requiredSkills,
    lanesWithoutRequirements,
    missingSkills,
    unusedGrants: recorded && lanesWithoutRequirements.length === 0 ? grantedSkills.filter((id) => !required.has(id)) : [],
    highRiskGrants: grantedSkills.filter((id) => registry.get(id)?.risk === 'high'),
    declaredOnlyGrants: grantedSkills.filter((id) => registry.get(id)?.executability === 'declared'),
    unregisteredGrants: grantedSkills.filter((id) => registry.get(id) === undefined),
    runCount: agent.runCount,
    lastRunAt: agent.lastRunAt,
    lanesRan: agent.runCount === null ? null : agent.runCount > 0,
  };
  return { ...base, governanceDepth: depthOf(base) };
}
