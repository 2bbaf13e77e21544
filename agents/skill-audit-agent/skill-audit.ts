import { assessAgentGovernance, loadSkillRegistry, type AgentGovernance, type GovernanceLevel, type SkillRegistry } from '../../src/agents/skills.js';
import { controlPlaneOf } from '../../src/worker-sdk/control-plane.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { findingsFor, type SkillAuditFinding } from './findings.js';

export type SkillAuditPosture = 'clear' | 'watching' | 'blocked';

export type SkillAuditSuccess = LaneResult<{
  success: true;
  posture: SkillAuditPosture;
  /** `all`, or the one agent id the payload asked for. */
  scope: string;
  agents: AgentGovernance[];
  findings: SkillAuditFinding[];
  levels: Record<GovernanceLevel, number>;
  registryVersion: string;
  registryDigest: string;
  snapshotAt: string;
}>;

const IDENTITY = { role: 'skill-audit-agent', workflowStage: 'governance-audit', deliverable: 'skill governance audit' };
const SEVERITY_ORDER = { high: 0, medium: 1, info: 2 } as const;

function postureOf(findings: readonly SkillAuditFinding[]): SkillAuditPosture {
  if (findings.some((f) => f.severity === 'high')) return 'blocked';
  if (findings.some((f) => f.severity === 'medium')) return 'watching';
  return 'clear';
}

function actionsFor(findings: readonly SkillAuditFinding[]): string[] {
  const actions: string[] = [];
  const kinds = new Set(findings.map((f) => f.kind));
  if (kinds.has('missing-grant')) actions.push('Grant the missing skills in the agent manifests (allowedSkills) or narrow the lane: the tool gate refuses those lanes now.');
  if (kinds.has('unregistered-grant')) actions.push('Register the unknown skill ids in src/agents/skills or remove them from the manifests: start-up rejects them.');
  if (kinds.has('declared-only-grant')) actions.push('Remove declared-only grants, or ship the executor that performs them.');
  if (kinds.has('unused-grant')) actions.push('Revoke grants no lane exercises, high-risk ones first (GET /api/skills/policy lists them).');
  if (kinds.has('no-requirement-record')) actions.push('Record skill requirements for lanes that pass no tool gate so their grants can be checked.');
  return actions.length ? actions : ['Grants match what the lanes exercise; run skill-audit again after manifest changes.'];
}

/**
 * The skill-audit lane: every agent's grants (or one agent's) from the control-plane snapshot,
 * judged against the governed skill registry and the lane requirement table, with findings, a
 * governance depth per agent and one posture (the worst finding decides).
 */
export function skillAudit(payload: LanePayload<'skill-audit'>, registry: SkillRegistry = loadSkillRegistry()): SkillAuditSuccess | LaneRefusal {
  const snapshot = controlPlaneOf(payload);
  if (!snapshot) {
    return refuseLane(IDENTITY, 'the payload carries no control-plane snapshot (__controlPlane): the audit reads the agents from it', [
      'Trigger skill-audit through the service, which attaches the snapshot.',
    ]);
  }
  const requested = payload.agentId;
  const selected = requested === undefined ? snapshot.agents : snapshot.agents.filter((a) => a.id === requested);
  if (requested !== undefined && selected.length === 0) {
    return refuseLane(IDENTITY, `unknown agent "${requested}": no such agent in the registry`, [
      `Pick one of: ${snapshot.agents.map((a) => a.id).join(', ')}.`,
    ]);
  }
  if (selected.length === 0) {
    return refuseLane(IDENTITY, 'the snapshot lists no agents to audit', ['Check the agentsDir of the service configuration.']);
  }

  const highRisk = new Set(registry.list().filter((s) => s.risk === 'high').map((s) => s.id));
  const agents = selected.map((a) =>
    assessAgentGovernance({ id: a.id, lanes: a.lanes, allowedSkills: a.allowedSkills, runCount: a.runCount, lastRunAt: a.lastRunAt }, registry),
  );
  const findings = agents
    .flatMap((g) => findingsFor(g, highRisk))
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.agentId.localeCompare(b.agentId));
  const posture = postureOf(findings);
  const levels: Record<GovernanceLevel, number> = { governed: 0, partial: 0, shallow: 0 };
  for (const g of agents) levels[g.governanceDepth.level] += 1;
  const high = findings.filter((f) => f.severity === 'high').length;
  const medium = findings.filter((f) => f.severity === 'medium').length;
  const scope = typeof requested === 'string' ? requested : 'all';
  return {
    success: true,
    posture,
    scope,
    agents,
    findings,
    levels,
    registryVersion: registry.version,
    registryDigest: registry.digest,
    snapshotAt: snapshot.generatedAt,
    operatorSummary:
      `Skill audit ${posture}: ${agents.length} agent(s) audited (${levels.governed} governed, ${levels.partial} partial, ${levels.shallow} shallow); ` +
      `${high} high and ${medium} medium finding(s)${findings[0] ? `; first: ${findings[0].message}` : ''}.`,
    recommendedNextActions: actionsFor(findings),
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
