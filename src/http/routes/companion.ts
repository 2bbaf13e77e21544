import Type, { type TSchema } from 'typebox';
import type { CompanionBriefs } from '../../aggregates/companion.js';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { operatorRead, routeFamily, viewerRead, type RouteSpec } from '../route-spec.js';

const Str = Type.String();
const NStr = Type.Union([Type.String(), Type.Null()]);
const Int = Type.Integer({ minimum: 0 });
const NNum = Type.Union([Type.Number(), Type.Null()]);
const Obj = (props: Record<string, TSchema>) => Type.Object(props, { additionalProperties: true });
const Bounded = { generatedAt: Str, truncation: Type.Array(Str), bytes: Int };

const OverviewBrief = Obj({
  ...Bounded,
  posture: Type.Union([Type.Literal('steady'), Type.Literal('attention'), Type.Literal('critical')]),
  queue: Obj({ queued: Int, processing: Int, held: Int, retrying: Int }),
  approvals: Obj({ pendingCount: Int, oldestRequestedAt: NStr }),
  incidents: Obj({ overallStatus: Str, openCount: Int, activeCount: Int, criticalCount: Int }),
  services: Obj({ declaredAgents: Int, serviceExpectedCount: Int, serviceExpectedWithoutEntrypoint: Type.Array(Str) }),
  proof: Obj({ unavailableReason: NStr }),
  business: Obj({ unavailableReason: NStr }),
  failingLanes: Type.Array(Obj({ type: Str, failed: Int, total: Int, failureRate: Type.Number() })),
  latestBrief: Type.Union([Obj({ runId: Str, finishedAt: Str, posture: NStr, headline: Str }), Type.Null()]),
  briefSections: Type.Array(Obj({ name: Str, status: NStr, facts: Type.Array(Str) })),
  nextActions: Type.Array(Str),
});

const IncidentsBrief = Obj({
  ...Bounded,
  overallStatus: Str,
  openCount: Int,
  activeCount: Int,
  watchingCount: Int,
  bySeverity: Obj({ critical: Int, warning: Int, info: Int }),
  untriagedOpenCount: Int,
  triage: Type.Union([Obj({ runId: Str, finishedAt: Str, snapshotAt: NStr }), Type.Null()]),
  open: Type.Array(Obj({ incidentId: Str, title: Str, classification: Str, severity: Str, status: Str, lastSeenAt: Str, owner: NStr, acknowledged: Type.Boolean() })),
  triageQueue: Type.Array(
    Obj({ rank: NNum, title: Str, severity: NStr, classification: NStr, score: NNum, source: NStr, recommendedAction: NStr, incidentId: NStr, stillOpen: Type.Union([Type.Boolean(), Type.Null()]) }),
  ),
});

const CatalogBrief = Obj({
  ...Bounded,
  count: Int,
  tasks: Type.Array(Obj({ type: Str, label: Str, approvalGated: Type.Boolean(), operationalStatus: Str, dependencyClass: Str, totalRuns: Int, successRate: NNum })),
});

const RunsBrief = Obj({
  ...Bounded,
  total: Int,
  byStatus: Type.Record(Type.String(), Int),
  runs: Type.Array(Obj({ runId: Str, type: Str, status: Str, createdAt: Str, finishedAt: NStr, summary: NStr })),
});

const ApprovalsBrief = Obj({
  ...Bounded,
  pendingCount: Int,
  oldestRequestedAt: NStr,
  approvals: Type.Array(Obj({ taskId: Str, runId: Str, type: Str, requestedAt: NStr, riskLevel: NStr, approvalReason: NStr })),
});

/** The five read-first companion routes for bridge and channel clients: bounded briefs (16 KiB at most). */
export function companionRoutes(deps: { briefs: CompanionBriefs }): RouteSpec[] {
  const briefsFor = {
    viewer: routeFamily({ tags: ['companion'], access: { ...viewerRead, companionView: true } }),
    operator: routeFamily({ tags: ['companion'], access: { ...operatorRead, companionView: true } }),
  };
  const route = (
    name: 'overview' | 'catalog' | 'incidents' | 'runs' | 'approvals',
    role: 'viewer' | 'operator',
    summary: string,
    body: TSchema,
    tags: string[],
  ): RouteSpec =>
    briefsFor[role].get(`/api/companion/${name}`, {
      operationId: `getCompanion${name[0]!.toUpperCase()}${name.slice(1)}`,
      summary,
      description: 'A bounded brief: stable field names, lists capped, at most 16 KiB; cuts are named in `truncation`.',
      cache: { tags },
      schema: { response: { 200: body } },
      handler: async () => ({ body: await deps.briefs[name]() }),
    });
  return [
    route('overview', 'viewer', 'Status brief: live queue, approvals, incidents, services, proof and the latest control-plane brief', OverviewBrief, [
      CacheTags.runs,
      CacheTags.approvals,
      CacheTags.incidents,
      CacheTags.agents,
    ]),
    route('catalog', 'viewer', 'Task catalog brief with run telemetry', CatalogBrief, [CacheTags.runs, CacheTags.catalog]),
    route('incidents', 'viewer', 'Open incidents fused with the latest incident-triage ranking', IncidentsBrief, [CacheTags.runs, CacheTags.incidents]),
    route('runs', 'viewer', 'Recent runs brief', RunsBrief, [CacheTags.runs]),
    route('approvals', 'operator', 'Pending approvals brief, oldest first', ApprovalsBrief, [CacheTags.runs, CacheTags.approvals]),
  ];
}
