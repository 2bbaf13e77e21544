import type { AgentGovernance } from '../../src/agents/skills.js';

export type FindingSeverity = 'high' | 'medium' | 'info';

export type FindingKind =
  | 'missing-grant'
  | 'unregistered-grant'
  | 'declared-only-grant'
  | 'unused-grant'
  | 'high-risk-grant'
  | 'no-requirement-record'
  | 'lane-never-ran';

export interface SkillAuditFinding {
  agentId: string;
  kind: FindingKind;
  severity: FindingSeverity;
  skillIds: string[];
  message: string;
}

const list = (ids: readonly string[]): string => ids.join(', ');

/**
 * What an operator should know about one agent's grants. High: the tool gate will refuse a lane
 * (missing grant) or start-up would reject the manifest (unregistered id). Medium: authority
 * nothing uses or nothing performs. Info: facts to keep in view.
 */
export function findingsFor(g: AgentGovernance, highRiskUnused: ReadonlySet<string>): SkillAuditFinding[] {
  const out: SkillAuditFinding[] = [];
  const add = (kind: FindingKind, severity: FindingSeverity, skillIds: string[], message: string) =>
    out.push({ agentId: g.agentId, kind, severity, skillIds, message });

  for (const lane of new Set(g.missingSkills.map((m) => m.lane))) {
    const ids = g.missingSkills.filter((m) => m.lane === lane).map((m) => m.skillId);
    add('missing-grant', 'high', ids, `${g.agentId} lacks ${list(ids)} that lane ${lane} exercises: the tool gate refuses its runs`);
  }
  if (g.unregisteredGrants.length) {
    add('unregistered-grant', 'high', g.unregisteredGrants, `${g.agentId} is granted ${list(g.unregisteredGrants)}, unknown to the skill registry`);
  }
  if (g.declaredOnlyGrants.length) {
    add('declared-only-grant', 'medium', g.declaredOnlyGrants, `${g.agentId} holds ${list(g.declaredOnlyGrants)}, which nothing in this build executes`);
  }
  const riskyUnused = g.unusedGrants.filter((id) => highRiskUnused.has(id));
  const plainUnused = g.unusedGrants.filter((id) => !highRiskUnused.has(id));
  if (riskyUnused.length) {
    add('unused-grant', 'medium', riskyUnused, `${g.agentId} holds high-risk ${list(riskyUnused)} that none of its lanes exercises`);
  }
  if (plainUnused.length) {
    add('unused-grant', 'info', plainUnused, `${g.agentId} holds ${list(plainUnused)} that none of its lanes exercises`);
  }
  const usedHighRisk = g.highRiskGrants.filter((id) => !riskyUnused.includes(id));
  if (usedHighRisk.length) {
    add('high-risk-grant', 'info', usedHighRisk, `${g.agentId} exercises high-risk ${list(usedHighRisk)} (${g.lanes.join(', ')})`);
  }
  if (g.lanesWithoutRequirements.length) {
    add(
      'no-requirement-record',
      g.lanesWithoutRequirements.length === g.lanes.length ? 'medium' : 'info',
      [],
      `${g.agentId} lane(s) ${list(g.lanesWithoutRequirements)} pass no tool gate, so their grants are not tied to use`,
    );
  }
  if (g.lanesRan === false) add('lane-never-ran', 'info', [], `${g.agentId} lane(s) ${list(g.lanes)} have not run in the observed window`);
  return out;
}
