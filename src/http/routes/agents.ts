import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { assertMayIncludeSensitive, recallAgentMemory, type MemoryRecallDeps } from '../../agents/memory-recall.js';
import { buildAgentsOverview, type AgentsOverviewDeps } from '../../agents/overview.js';
import { routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

/** Cache tag of agent-derived reads; bump it when manifests, host probes or heartbeats change. */
const AGENTS_CACHE_TAG = CacheTags.agents;

const BooleanQuery = Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'exactly `true` or `false`' });

const RecallQuery = Type.Object(
  {
    agentId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9-]*$' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    includeSensitive: Type.Optional(BooleanQuery),
  },
  { additionalProperties: false },
);

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

const OverviewResponse = Type.Object(
  {
    generatedAt: Type.String({ format: 'date-time' }),
    agents: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          orchestratorTask: Type.String(),
          spawnedWorkerCapable: Type.Boolean(),
          serviceAvailable: Type.Boolean(),
          serviceExpected: Type.Boolean(),
          lifecycleMode: Type.String(),
          hostServiceStatus: Type.String(),
          serviceUnitName: Type.Union([Type.String(), Type.Null()]),
          serviceInstalled: Type.Union([Type.Boolean(), Type.Null()]),
          serviceRunning: Type.Union([Type.Boolean(), Type.Null()]),
          serviceUnitState: Type.Union([Type.String(), Type.Null()]),
          serviceUnitSubState: Type.Union([Type.String(), Type.Null()]),
          serviceUnitFileState: Type.Union([Type.String(), Type.Null()]),
          modelTier: Type.String(),
          model: Type.Union([Type.String(), Type.Null()], { description: 'the model the tier resolves to; null for local agents or without a provider' }),
          allowedSkills: Type.Array(Type.String()),
          memory: Type.Object({ totalRuns: Type.Integer(), lastRunAt: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: true }),
          serviceImplementation: Type.Boolean(),
          serviceOperational: Type.Union([Type.Boolean(), Type.Null()]),
          capability: Open('role, spine, currentReadiness, capabilities, evidence, runtimeEvidence, ultraGapSummary'),
        },
        { additionalProperties: true },
      ),
    ),
    topology: Open('orchestrator → task → agent → skill graph with agent-to-agent relationships'),
    relationshipHistory: Open('hourly aggregation of observed delegation, tool-use, verification and monitoring'),
    serviceGaps: Type.Array(
      Type.Object({ agentId: Type.String(), unit: Type.String(), reason: Type.String(), detail: Type.String() }),
      { description: 'service-expected agents whose unit the host probe shows missing, stopped or failed' },
    ),
  },
  { additionalProperties: true },
);

const RecallResponse = Type.Object(
  {
    agentId: Type.String(),
    redacted: Type.Boolean(),
    runs: Type.Array(Open('runId, type, status, createdAt, finishedAt, operatorSummary, error, highlights')),
    page: Type.Object({ limit: Type.Integer(), offset: Type.Integer(), returned: Type.Integer(), total: Type.Integer() }),
    totals: Open('runs, byStatus, lastRunAt'),
    serviceHeartbeat: Type.Union([Open('resident-service heartbeat'), Type.Null()]),
  },
  { additionalProperties: true },
);

export type AgentRoutesDeps = AgentsOverviewDeps & MemoryRecallDeps;

export function agentRoutes(deps: AgentRoutesDeps): RouteSpec[] {
  const reads = routeFamily({ tags: ['agents'], access: viewerRead });
  return [
    reads.get('/api/agents/overview', {
      operationId: 'getAgentsOverview',
      summary: 'Agents with lifecycle truth, readiness computed from evidence, topology and relationship history',
      cache: { tags: [CacheTags.runs, AGENTS_CACHE_TAG] },
      schema: { response: { 200: OverviewResponse } },
      handler: async () => ({ body: await buildAgentsOverview(deps) }),
    }),
    reads.get('/api/memory/recall', {
      operationId: 'recallAgentMemory',
      summary: "An agent's recent runs with highlights and its service heartbeat, redacted by default",
      description: 'includeSensitive=true returns unredacted values and is open to admin keys only (403 forbidden otherwise).',
      // Keyed by role as every protected read: an admin's unredacted answer never reaches a viewer.
      cache: { tags: [CacheTags.runs, AGENTS_CACHE_TAG] },
      schema: { querystring: RecallQuery, response: { 200: RecallResponse } },
      handler: async (ctx: ProtectedContext<Static<typeof RecallQuery>>) => {
        const includeSensitive = ctx.query.includeSensitive === 'true';
        // Before any lookup: a non-admin learns nothing, not even whether the agent exists.
        assertMayIncludeSensitive(ctx.identity, includeSensitive);
        const body = await recallAgentMemory(deps, {
          agentId: ctx.query.agentId,
          limit: ctx.query.limit ?? 20,
          offset: ctx.query.offset ?? 0,
          includeSensitive,
        });
        return { body };
      },
    }),
  ];
}
