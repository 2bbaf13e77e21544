import Type, { type Static } from 'typebox';
import type { AgentRegistry } from '../../agents/registry.js';
import type { SkillRegistry } from '../../agents/skills.js';
import { auditReport, policyReport, registryReport, telemetryReport } from '../../agents/skills/reports.js';
import type { ToolGateEvidence } from '../../agents/tool-gate.js';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const SKILLS_CACHE_TAG = CacheTags.skills;

export interface SkillRouteDeps {
  skills: SkillRegistry;
  agents: AgentRegistry;
  /** Every recorded tool-gate evidence record (preflight plus execute), any order. */
  evidence: () => Promise<ToolGateEvidence[]>;
}

const StringList = Type.Array(Type.String());
const Counts = Type.Record(Type.String(), Type.Integer());
const AgentSkills = Type.Object({ agentId: Type.String(), skills: StringList });

const Provenance = Type.Object({ source: Type.String(), definitionHash: Type.String({ pattern: '^[0-9a-f]{64}$' }), registryVersion: Type.String() });
const IntakeRecord = Type.Object({
  id: Type.String(),
  description: Type.String(),
  executability: Type.Union([Type.Literal('executable'), Type.Literal('declared')]),
  executorBinding: Type.Union([Type.String(), Type.Null()]),
  persistenceMode: Type.Union(['read-only', 'writes-workspace', 'writes-logs', 'writes-state', 'none'].map((m) => Type.Literal(m))),
  risk: Type.Union(['low', 'medium', 'high'].map((r) => Type.Literal(r))),
  provenance: Provenance,
  grantedTo: StringList,
  requiredBy: StringList,
});
const RegistryResponse = Type.Object({
  registryVersion: Type.String(),
  digest: Type.String(),
  count: Type.Integer(),
  skills: Type.Array(IntakeRecord),
});

const PolicyResponse = Type.Object({
  posture: Type.Union([Type.Literal('clear'), Type.Literal('watching'), Type.Literal('blocked')]),
  registryVersion: Type.String(),
  skillCount: Type.Integer(),
  byExecutability: Counts,
  byRisk: Counts,
  byPersistenceMode: Counts,
  highRiskGrants: Type.Array(AgentSkills),
  uncoveredLanes: Type.Array(
    Type.Object({ lane: Type.String(), agentId: Type.Union([Type.String(), Type.Null()]), missingSkills: StringList, nonExecutableSkills: StringList }),
  ),
  unusedGrants: Type.Array(AgentSkills),
  declaredOnlyGrants: Type.Array(AgentSkills),
  unregisteredGrants: Type.Array(Type.Object({ agentId: Type.String(), skillId: Type.String() })),
  agents: Type.Array(Type.Object({ agentId: Type.String(), level: Type.String(), score: Type.Integer() })),
});

const Usage = {
  preflightsAllowed: Type.Integer(),
  preflightsRefused: Type.Integer(),
  executionsOk: Type.Integer(),
  executionsFailed: Type.Integer(),
  lastSeenAt: Type.Union([Type.String(), Type.Null()]),
};
const TelemetryResponse = Type.Object({
  evidenceCount: Type.Integer(),
  skills: Type.Array(Type.Object({ skillId: Type.String(), registered: Type.Boolean(), ...Usage })),
  lanes: Type.Array(Type.Object({ taskType: Type.String(), ...Usage })),
});

const Preflight = Type.Object(
  {
    decision: Type.Union([Type.Literal('allowed'), Type.Literal('refused')]),
    taskType: Type.String(),
    agentId: Type.String(),
    requiredSkills: StringList,
    grantedSkills: StringList,
    missingSkills: StringList,
    nonExecutableSkills: StringList,
    reason: Type.Union([Type.String(), Type.Null()]),
    checkedAt: Type.String(),
  },
  { additionalProperties: true },
);
const Execute = Type.Object({
  skillsExercised: StringList,
  ok: Type.Boolean(),
  durationMs: Type.Number(),
  failureReason: Type.Union([Type.String(), Type.Null()]),
  recordedAt: Type.String(),
});
const AuditQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) },
  { additionalProperties: false },
);
const AuditResponse = Type.Object({
  total: Type.Integer(),
  limit: Type.Integer(),
  count: Type.Integer(),
  items: Type.Array(
    Type.Object({ runId: Type.String(), taskType: Type.String(), agentId: Type.String(), preflight: Preflight, execute: Type.Union([Execute, Type.Null()]) }),
  ),
});

/** The four skill governance reads; see src/agents/skills/reports.ts for what each computes. */
export function skillRoutes(deps: SkillRouteDeps): RouteSpec[] {
  const agents = () => deps.agents.list();
  const reads = routeFamily({ tags: ['skills'], access: viewerRead });
  return [
    reads.get('/api/skills/registry', {
      operationId: 'getSkillRegistry',
      summary: 'Governed-skill intake records: executability, executor binding, persistence mode, provenance, grants',
      cache: { tags: [SKILLS_CACHE_TAG] },
      schema: { response: { 200: RegistryResponse } },
      handler: async () => ({ body: registryReport(deps.skills, agents()) }),
    }),
    reads.get('/api/skills/policy', {
      operationId: 'getSkillPolicy',
      summary: 'Governance posture: counts by executability and risk, high-risk grants, uncovered lanes, unused grants',
      cache: { tags: [SKILLS_CACHE_TAG] },
      schema: { response: { 200: PolicyResponse } },
      handler: async () => ({ body: policyReport(deps.skills, agents(), (lane) => deps.agents.forLane(lane)) }),
    }),
    reads.get('/api/skills/telemetry', {
      operationId: 'getSkillTelemetry',
      summary: 'Per skill and per lane: preflights allowed and refused, executions ok and failed, last seen',
      // Evidence is recorded with run writes, which invalidate `runs`.
      cache: { tags: [SKILLS_CACHE_TAG, CacheTags.runs] },
      schema: { response: { 200: TelemetryResponse } },
      handler: async () => ({ body: telemetryReport(deps.skills, await deps.evidence()) }),
    }),
    reads.get('/api/skills/audit', {
      operationId: 'getSkillAudit',
      summary: 'Newest tool-gate preflight and execute evidence records',
      cache: { tags: [SKILLS_CACHE_TAG, CacheTags.runs] },
      schema: { querystring: AuditQuery, response: { 200: AuditResponse } },
      handler: async (ctx: ProtectedContext<Static<typeof AuditQuery>>) => ({
        body: auditReport(await deps.evidence(), ctx.query.limit ?? 50),
      }),
    }),
  ];
}
