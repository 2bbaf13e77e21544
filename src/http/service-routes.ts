import type { AgentRegistry } from '../agents/registry.js';
import type { BusinessService } from '../business/service.js';
import type { SkillRegistry } from '../agents/skills.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { KnowledgeService } from '../knowledge/service.js';
import type { IncidentService } from '../incidents/service.js';
import type { StateStore } from '../store/types.js';
import { createCatalogView } from '../tasks/catalog-view.js';
import type { TaskRuntime } from '../tasks/runtime.js';
import type { RouteSpec } from './route-spec.js';
import { buildRouteTable } from './route-table.js';
import type { AgentsOverviewDeps } from '../agents/overview.js';
import { createAggregateReaders } from '../aggregates/readers.js';
import { createCodeHostMonitor, type CodeHostMonitor } from '../aggregates/code-host-monitor.js';
import { createCompanionBriefs } from '../aggregates/companion.js';
import type { AggregateReadPorts } from '../aggregates/read-ports.js';
import { emptyIncidentReadPort } from '../incidents/read-port.js';
import { createControlPlaneSnapshot } from '../tasks/control-plane-snapshot.js';
import type { ControlPlaneSnapshot } from '../worker-sdk/control-plane.js';
import { aggregateRoutes } from './routes/aggregates.js';
import { companionRoutes } from './routes/companion.js';
import { agentRoutes } from './routes/agents.js';
import { approvalRoutes } from './routes/approvals.js';
import { authRoutes } from './routes/auth.js';
import { businessRoutes } from './routes/business.js';
import { healthRoutes } from './routes/health.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { incidentRoutes } from './routes/incidents.js';
import { openapiRoutes } from './routes/openapi.js';
import { persistenceHealthRoutes, persistenceRoutes } from './routes/persistence.js';
import { proofRoutes } from './routes/proof.js';
import { createProofFeed } from '../proof/proof-feed.js';
import { skillRoutes } from './routes/skills.js';
import { taskRoutes } from './routes/tasks.js';
import { webhookRoutes } from './routes/webhook.js';

export interface ServiceRouteDeps {
  config: AppConfig;
  clock: Clock;
  store: StateStore;
  coordination: Coordination;
  runtime: TaskRuntime;
  agents: AgentRegistry;
  skills: SkillRegistry;
  /** The cached host service probe and the resident services' heartbeat reader. */
  probe: AgentsOverviewDeps['probe'];
  serviceHeartbeat: AgentsOverviewDeps['serviceHeartbeat'];
  /** The incident ledger with its sources, policies and alert ingest. */
  incidents: IncidentService;
  /** The metrics listener's port once it is known (null when disabled or not yet listening). */
  metricsPort: () => number | null;
  /**
   * Read ports of the aggregates (extended health, dashboard, companion briefs). Unset ports read
   * as unavailable; unset `incidents` is the empty ledger.
   */
  aggregatePorts?: Partial<AggregateReadPorts>;
  /** The code-host CI monitor (started by the composition root); defaults to one built from config, not started. */
  codeHost?: CodeHostMonitor;
  controlPlaneSnapshot?: () => Promise<ControlPlaneSnapshot>;
  serviceStartedAt?: Date;
  knowledge: KnowledgeService;
  business: BusinessService;
}

/** The service's whole route table: every route family, in one place. */
export function buildServiceRoutes(deps: ServiceRouteDeps): RouteSpec[] {
  const { config, clock, store, coordination, runtime } = deps;
  const agentsDeps = {
    registry: deps.agents,
    store,
    probe: deps.probe,
    skills: deps.skills,
    serviceHeartbeat: deps.serviceHeartbeat,
    now: () => clock.now(),
  };
  const serviceStartedAt = deps.serviceStartedAt ?? clock.now();
  const proofFeed = createProofFeed({ store, now: () => clock.now() });
  const ports: AggregateReadPorts = {
    proof: proofFeed,
    ...deps.aggregatePorts,
    incidents: deps.aggregatePorts?.incidents ?? emptyIncidentReadPort,
  };
  const catalog = createCatalogView(store);
  const controlPlaneSnapshot =
    deps.controlPlaneSnapshot ??
    createControlPlaneSnapshot({
      store,
      clock,
      config,
      agents: deps.agents,
      serviceStartedAt,
      stateStoreKind: store.kind === 'sql' ? 'sqlite' : store.kind,
      coordinationKind: coordination.kind === 'kvstore' ? 'redis' : 'memory',
    });
  const routes: RouteSpec[] = buildRouteTable([
    healthRoutes({ config, clock, metricsPort: deps.metricsPort }),
    authRoutes(),
    openapiRoutes(() => routes, { title: 'Task orchestration service', version: '1.0.0' }),
    persistenceHealthRoutes({ storeHealth: () => store.health(), storeKind: () => store.kind, coordination }),
    persistenceRoutes({ store, coordination, now: () => clock.now() }),
    taskRoutes({ runtime, catalog }),
    approvalRoutes({ runtime }),
    proofRoutes({ feed: proofFeed }),
    knowledgeRoutes({ knowledge: deps.knowledge }),
    skillRoutes({ skills: deps.skills, agents: deps.agents, evidence: () => runtime.toolGateEvidence() }),
    agentRoutes(agentsDeps),
    aggregateRoutes({
      readers: createAggregateReaders({
        config,
        clock,
        store,
        coordination,
        agents: agentsDeps,
        codeHost: deps.codeHost ?? createCodeHostMonitor(config.codeHostMonitor),
        ports,
        serviceStartedAt,
      }),
    }),
    companionRoutes({
      briefs: createCompanionBriefs({
        store,
        incidents: ports.incidents,
        proof: ports.proof,
        business: ports.business,
        controlPlaneSnapshot,
        catalog,
        pendingApprovals: () => runtime.approvals.listPending(),
        now: () => clock.now(),
      }),
    }),
    incidentRoutes({ incidents: deps.incidents }),
    webhookRoutes({ incidents: deps.incidents }),
    businessRoutes({ business: deps.business }),
  ]);
  return routes;
}
