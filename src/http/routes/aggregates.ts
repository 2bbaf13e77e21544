import Type from 'typebox';
import { AccountingSchema, BySeverity, ExtendedHealthSchema, Int, NInt, NStr, Obj, Str, Unavailable } from '../../aggregates/extended-health-answer.js';
import type { AggregateReaders } from '../../aggregates/readers.js';
import { RunStatsQuerySchema, RunStatsSchema, type RunStatsQuery } from '../../aggregates/run-stats.js';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const DashboardBody = Obj({
  generatedAt: Str,
  health: Obj({ fastStartMode: Type.Boolean() }),
  queue: Obj({
    queued: Int,
    processing: Int,
    pressure: Type.Array(Obj({ type: Str, label: Str, source: Str, queuedCount: Int, processingCount: Int, totalCount: Int })),
  }),
  approvals: Obj({ pendingCount: Int }),
  selfHealing: Obj({ summary: Obj({ totalCount: NInt, activeCount: NInt, verifiedCount: NInt, ...Unavailable }) }),
  governance: Obj({ taskRetryRecoveries: Obj({ count: Int, nextRetryAt: NStr }) }),
  accounting: AccountingSchema,
  incidents: Obj({
    overallStatus: Str,
    openCount: Int,
    activeCount: Int,
    watchingCount: Int,
    bySeverity: BySeverity,
    topClassifications: Type.Array(
      Obj({ classification: Str, label: Str, count: Int, activeCount: Int, watchingCount: Int, highestSeverity: Str }),
    ),
  }),
  recentTasks: Type.Array(Obj({ handledAt: Str, type: Str, result: Str, message: Str })),
  persistence: Obj({ status: Str, mode: Str, coordination: Str }),
});

const RuntimeFactsBody = Obj({
  generatedAt: Str,
  persistence: Obj({ mode: Str, target: Str, stateOverridden: Type.Boolean(), coordination: Str }),
  heartbeat: Obj({ cron: Str, schedulerEnabled: Type.Boolean(), lastRunAt: NStr }),
  taskClassification: Obj({
    internalOnly: Type.Array(Str),
    publicTriggerable: Type.Array(Str),
    approvalGatedByDefault: Type.Array(Str),
    controlPlaneLanes: Type.Array(Str),
  }),
  residentServices: Obj({
    expectedCount: Int,
    workerFirstCount: Int,
    expected: Type.Array(Obj({ agentId: Str, serviceUnitName: NStr, hostServiceStatus: Str })),
  }),
  execution: Obj({ fastStart: Type.Boolean(), concurrency: Int }),
});

/** Everything whose change an aggregate shows: run writes, approvals, incidents, agents, persistence. */
const AGGREGATE_TAGS = [CacheTags.runs, CacheTags.approvals, CacheTags.incidents, CacheTags.agents, CacheTags.persistence];

/** GET /api/health/extended, /api/dashboard/overview and /api/runtime/facts. */
export function aggregateRoutes(deps: { readers: AggregateReaders }): RouteSpec[] {
  const healthReads = routeFamily({ tags: ['health'], access: viewerRead });
  const dashboardReads = routeFamily({ tags: ['dashboard'], access: viewerRead });
  return [
    healthReads.get('/api/health/extended', {
      operationId: 'getExtendedHealth',
      summary: 'Authoritative health: control plane, workers, repairs, dependencies, truth layers, incidents',
      description:
        'Computed from run counts, the agents overview, the store and coordination health, the incident read port and the cached code-host reading. Figures of parts not wired yet are null with `unavailableReason`.',
      // The code-host reading changes without a state write: its probe time is part of the key.
      cache: { tags: () => [...AGGREGATE_TAGS, `code-host:${deps.readers.codeHostCheckedAt()}`] },
      schema: { response: { 200: ExtendedHealthSchema } },
      handler: async () => ({ body: await deps.readers.extendedHealth() }),
    }),
    dashboardReads.get('/api/dashboard/overview', {
      operationId: 'getDashboardOverview',
      summary: 'Lean console aggregate (not authoritative health)',
      description: 'Accounting covers the newest finished runs (`accounting.windowRuns`, at most 200).',
      cache: { tags: AGGREGATE_TAGS },
      schema: { response: { 200: DashboardBody } },
      handler: async () => ({ body: await deps.readers.dashboard() }),
    }),
    dashboardReads.get('/api/dashboard/run-stats', {
      operationId: 'getRunStats',
      summary: 'Runs per time bucket by status, failure rate and p50/p95 duration per type, queue depth',
      description:
        'Over the last hour (1-minute buckets) or day (15-minute buckets), from one read of at most the 2,000 newest public runs (`sample.truncated` when the window held more). Cached until a run changes, and at most 15 s, since the window moves.',
      cache: { tags: [CacheTags.runs], maxAgeSeconds: 15 },
      schema: { querystring: RunStatsQuerySchema, response: { 200: RunStatsSchema } },
      handler: async (ctx: ProtectedContext<RunStatsQuery>) => ({ body: await deps.readers.runStats(ctx.query.window ?? 'hour') }),
    }),
    healthReads.get('/api/runtime/facts', {
      operationId: 'getRuntimeFacts',
      summary: 'Effective persistence mode, heartbeat schedule, task classification, resident-service expectations',
      cache: { tags: [CacheTags.runs, CacheTags.agents, CacheTags.persistence] },
      schema: { response: { 200: RuntimeFactsBody } },
      handler: async () => ({ body: await deps.readers.runtimeFacts() }),
    }),
  ];
}
