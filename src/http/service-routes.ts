import type { AgentsOverviewDeps } from '../agents/overview.js';
import type { SkillRegistry } from '../agents/skills.js';
import type { createAggregateReaders } from '../aggregates/readers.js';
import type { createCompanionBriefs } from '../aggregates/companion.js';
import type { BusinessService } from '../business/service.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { IncidentService } from '../incidents/service.js';
import type { KnowledgeService } from '../knowledge/service.js';
import type { ProofFeed } from '../proof/proof-feed.js';
import type { RunLogReader } from '../runlogs/types.js';
import type { AlertService } from '../alerts/service.js';
import type { ScheduleService } from '../schedules/schedule-service.js';
import type { FlowService } from '../flows/flow-service.js';
import type { StateStore } from '../store/types.js';
import type { ApprovalLinks } from '../tokens/approval-links.js';
import type { TokenService } from '../tokens/scoped-tokens.js';
import type { CatalogView } from '../runtime/catalog-view.js';
import type { RunEventHub } from '../events/run-event-hub.js';
import type { TaskRuntime } from '../runtime/runtime.js';
import type { TaskTypeReload } from '../operator-types/reload.js';
import type { RouteSpec } from './route-spec.js';
import { buildRouteTable } from './route-table.js';
import { aggregateRoutes } from './routes/aggregates.js';
import { companionRoutes } from './routes/companion.js';
import { agentRoutes } from './routes/agents.js';
import { approvalRoutes } from './routes/approvals.js';
import { authRoutes } from './routes/auth.js';
import { businessRoutes } from './routes/business.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { incidentRoutes } from './routes/incidents.js';
import { openapiRoutes } from './routes/openapi.js';
import { persistenceHealthRoutes, persistenceRoutes } from './routes/persistence.js';
import { proofRoutes } from './routes/proof.js';
import { runRerunRoutes } from './routes/run-rerun.js';
import { runLogRoutes } from './routes/run-logs.js';
import { scheduleRoutes } from './routes/schedules.js';
import { flowRoutes } from './routes/flows.js';
import { alertRoutes } from './routes/alerts.js';
import { runCancelRoutes } from './routes/run-cancel.js';
import { bulkRunRoutes } from './routes/bulk-runs.js';
import { skillRoutes } from './routes/skills.js';
import { taskRoutes } from './routes/tasks.js';
import { taskTypeRoutes } from './routes/task-types.js';
import { tokenRoutes } from './routes/tokens.js';
import { queueRoutes } from './routes/queue.js';
import { webhookRoutes } from './routes/webhook.js';

/**
 * What the route families adapt to HTTP: finished domain objects, every one built by the
 * composition root (src/app.ts). The HTTP layer builds none of them.
 */
export interface ServiceRouteDeps {
  config: AppConfig;
  clock: Clock;
  store: StateStore;
  coordination: Coordination;
  runtime: TaskRuntime;
  catalog: CatalogView;
  /** The agents overview's dependencies (registry, host probe, heartbeats, skills). */
  agents: AgentsOverviewDeps;
  skills: SkillRegistry;
  incidents: IncidentService;
  knowledge: KnowledgeService;
  business: BusinessService;
  proofFeed: ProofFeed;
  /** Extended health, dashboard and runtime facts. */
  aggregates: ReturnType<typeof createAggregateReaders>;
  companion: ReturnType<typeof createCompanionBriefs>;
  /** What each attempt of a run printed. */
  runLogs: RunLogReader;
  schedules: ScheduleService;
  /** Flows of runs that depend on runs. */
  flows: FlowService;
  /** The metrics listener's port (null when metrics are off). */
  metricsPort: number | null;
  /** The live event streams. */
  events: RunEventHub;
  /** Alert rules, notices and their deliveries. */
  alerts: AlertService;
  /** The operator task types folder, read again on request. */
  taskTypes: TaskTypeReload;
  /** Scoped read tokens (issue, list, revoke). */
  tokens: TokenService;
  /** Approval links (make them; presented, they stand for the approver's key). */
  approvalLinks: ApprovalLinks;
}

/** The service's whole route table: every route family, in one place. */
export function buildServiceRoutes(deps: ServiceRouteDeps): RouteSpec[] {
  const { config, clock, store, coordination, runtime } = deps;
  const routes: RouteSpec[] = buildRouteTable([
    healthRoutes({ config, clock, metricsPort: () => deps.metricsPort }),
    authRoutes(),
    tokenRoutes({ tokens: deps.tokens }),
    openapiRoutes(() => routes, { title: 'Task orchestration service', version: '1.0.0' }),
    persistenceHealthRoutes({ storeHealth: () => store.health(), storeKind: () => store.kind, coordination }),
    persistenceRoutes({ store, coordination, now: () => clock.now() }),
    taskRoutes({ runtime, catalog: deps.catalog, viewerSeesPayloads: config.viewerSeesPayloads }),
    queueRoutes({ runtime }),
    runRerunRoutes({ runtime }),
    runCancelRoutes({ runtime }),
    bulkRunRoutes({ runtime }),
    eventRoutes({ events: deps.events }),
    approvalRoutes({ runtime, links: deps.approvalLinks }),
    runLogRoutes({ runLogs: deps.runLogs }),
    proofRoutes({ feed: deps.proofFeed }),
    knowledgeRoutes({ knowledge: deps.knowledge }),
    skillRoutes({ skills: deps.skills, agents: deps.agents.registry, evidence: () => runtime.toolGateEvidence() }),
    agentRoutes(deps.agents),
    aggregateRoutes({ readers: deps.aggregates }),
    companionRoutes({ briefs: deps.companion }),
    incidentRoutes({ incidents: deps.incidents }),
    webhookRoutes({ incidents: deps.incidents }),
    businessRoutes({ business: deps.business }),
    scheduleRoutes({ schedules: deps.schedules }),
    flowRoutes({ flows: deps.flows, events: deps.events }),
    alertRoutes({ alerts: deps.alerts }),
    taskTypeRoutes({ taskTypes: deps.taskTypes }),
  ]);
  return routes;
}
