import type { AgentRegistry } from '../agents/registry.js';
import type { SkillRegistry } from '../agents/skills.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import { createCatalogView } from '../tasks/catalog-view.js';
import type { TaskRuntime } from '../tasks/runtime.js';
import type { RouteSpec } from './route-spec.js';
import { buildRouteTable } from './route-table.js';
import type { AgentsOverviewDeps } from '../agents/overview.js';
import { agentRoutes } from './routes/agents.js';
import { approvalRoutes } from './routes/approvals.js';
import { authRoutes } from './routes/auth.js';
import { healthRoutes } from './routes/health.js';
import { openapiRoutes } from './routes/openapi.js';
import { persistenceHealthRoutes, persistenceRoutes } from './routes/persistence.js';
import { skillRoutes } from './routes/skills.js';
import { taskRoutes } from './routes/tasks.js';

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
  /** The metrics listener's port once it is known (null when disabled or not yet listening). */
  metricsPort: () => number | null;
}

/** The service's whole route table: every route family, in one place. */
export function buildServiceRoutes(deps: ServiceRouteDeps): RouteSpec[] {
  const { config, clock, store, coordination, runtime } = deps;
  const routes: RouteSpec[] = buildRouteTable([
    healthRoutes({ config, clock, metricsPort: deps.metricsPort }),
    authRoutes(),
    openapiRoutes(() => routes, { title: 'Task orchestration service', version: '1.0.0' }),
    persistenceHealthRoutes({ storeHealth: () => store.health(), storeKind: () => store.kind, coordination }),
    persistenceRoutes({ store, coordination, now: () => clock.now() }),
    taskRoutes({ runtime, catalog: createCatalogView(store) }),
    approvalRoutes({ runtime }),
    skillRoutes({ skills: deps.skills, agents: deps.agents, evidence: () => runtime.toolGateEvidence() }),
    agentRoutes({
      registry: deps.agents,
      store,
      probe: deps.probe,
      skills: deps.skills,
      serviceHeartbeat: deps.serviceHeartbeat,
      now: () => clock.now(),
    }),
  ]);
  return routes;
}
