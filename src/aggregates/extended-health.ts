import type { AgentLifecycle } from '../agents/overview.js';
import type { ServiceGapSignal } from '../agents/service-probe.js';
import type { AppConfig } from '../config/types.js';
import type { IncidentRollup } from '../incidents/read-port.js';
import type { RunCounts } from '../store/types.js';
import { taskCatalog } from '../runtime/catalog.js';
import type { CodeHostReading } from './code-host-monitor.js';
import type { PersistenceView } from './persistence-view.js';
import type { Maybe } from './read-ports.js';

export type HealthStatus = 'healthy' | 'degraded' | 'critical';

export interface WorkerCounts {
  declaredAgents: number;
  spawnedWorkerCapableCount: number;
  serviceExpectedCount: number;
  serviceAvailableCount: number;
  serviceInstalledCount: number;
  serviceRunningCount: number;
  serviceExpectedGapCount: number;
  /** Legacy alias of serviceRunningCount; not stronger truth. */
  serviceOperationalCount: number;
}

export type ServiceMode = 'no-resident-services' | 'all-services-running' | 'partial-services' | 'workers-only' | 'probe-unavailable';

export interface ExtendedHealthInput {
  now: Date;
  config: Pick<AppConfig, 'fastStart' | 'schedulerEnabled' | 'concurrency' | 'kvStoreUrl' | 'codeHostMonitor'>;
  counts: RunCounts;
  agents: { agents: AgentLifecycle[]; serviceGaps: ServiceGapSignal[] };
  persistence: PersistenceView;
  knowledge: Maybe<{ indexedEntries: number; conceptCount: number }>;
  repairs: Maybe<{ activeCount: number; verifiedCount: number; failedCount: number }>;
  codeHost: CodeHostReading;
  incidents: IncidentRollup;
}

/** Agent lifecycle counts, straight from the agents overview entries. */
export function workerCounts(agents: ExtendedHealthInput['agents']): WorkerCounts {
  const count = (pick: (a: AgentLifecycle) => boolean) => agents.agents.filter(pick).length;
  const running = count((a) => a.serviceExpected && a.serviceRunning === true);
  return {
    declaredAgents: agents.agents.length,
    spawnedWorkerCapableCount: count((a) => a.spawnedWorkerCapable),
    serviceExpectedCount: count((a) => a.serviceExpected),
    serviceAvailableCount: count((a) => a.serviceAvailable),
    serviceInstalledCount: count((a) => a.serviceExpected && a.serviceInstalled === true),
    serviceRunningCount: running,
    serviceExpectedGapCount: agents.serviceGaps.length,
    serviceOperationalCount: running,
  };
}

/**
 * How task types reach an executor: every catalog type maps to an in-process handler or a worker
 * lane; a worker lane whose agent cannot be spawned here is a routing gap.
 */
export function routingView(agents: ExtendedHealthInput['agents']) {
  const spawnable = new Set(agents.agents.filter((a) => a.spawnedWorkerCapable).map((a) => a.id));
  const workerLanes = taskCatalog().filter((e) => e.executor === 'worker');
  const unroutable = workerLanes.filter((e) => e.agentId !== null && !spawnable.has(e.agentId)).map((e) => e.type);
  return {
    status: unroutable.length === 0 ? ('ok' as const) : ('degraded' as const),
    handlerTypes: taskCatalog().filter((e) => e.executor === 'handler').length,
    workerLanes: workerLanes.length,
    publicTaskTypes: taskCatalog().filter((e) => e.publicTriggerable).length,
    internalTaskTypes: taskCatalog().filter((e) => e.internalOnly).length,
    approvalGatedByDefault: taskCatalog().filter((e) => e.approvalGated).map((e) => e.type),
    lanesWithoutSpawnableAgent: unroutable,
  };
}

/** What the host shows of the resident services the runtime contract expects. */
export function serviceModeOf(workers: WorkerCounts, agents: ExtendedHealthInput['agents']): ServiceMode {
  if (workers.serviceExpectedCount === 0) return 'no-resident-services';
  const expected = agents.agents.filter((a) => a.serviceExpected);
  if (expected.every((a) => a.serviceRunning === null)) return 'probe-unavailable';
  if (workers.serviceRunningCount === workers.serviceExpectedCount) return 'all-services-running';
  return workers.serviceRunningCount === 0 ? 'workers-only' : 'partial-services';
}

/**
 * The authoritative health: the worst of persistence, coordination, routing, resident services
 * and open incidents. `statusReasons` names every finding that lowered it. The code host's CI
 * conclusion is reported, but a red CI on the repository does not make the service unhealthy.
 */
export function composeExtendedHealth(input: ExtendedHealthInput) {
  const workers = workerCounts(input.agents);
  const routing = routingView(input.agents);
  const serviceMode = serviceModeOf(workers, input.agents);
  const critical: string[] = [];
  const degraded: string[] = [];
  const p = input.persistence;
  if (p.database.status === 'down') critical.push(`state store down: ${p.database.detail}`);
  else if (p.database.status === 'degraded') degraded.push(`state store degraded: ${p.database.detail}`);
  if (p.coordination.status === 'degraded') degraded.push(`coordination degraded: ${p.coordination.detail}`);
  if (routing.status !== 'ok') degraded.push(`no spawnable agent for lanes ${routing.lanesWithoutSpawnableAgent.join(', ')}`);
  if (workers.serviceExpectedGapCount > 0) {
    degraded.push(`${workers.serviceExpectedGapCount} service-expected agent(s) with a missing or stopped unit`);
  }
  if (input.incidents.overallStatus === 'critical') critical.push(`${input.incidents.bySeverity.critical} open critical incident(s)`);
  else if (input.incidents.openCount > 0 && input.incidents.overallStatus === 'warning') {
    degraded.push(`${input.incidents.openCount} open incident(s)`);
  }
  const status: HealthStatus = critical.length > 0 ? 'critical' : degraded.length > 0 ? 'degraded' : 'healthy';

  const observedFindings = [...critical, ...degraded];
  const configuredSummary = [
    `${workers.declaredAgents} agents declared (${workers.serviceExpectedCount} service-expected)`,
    `state store ${p.database.mode}`,
    `coordination ${input.config.kvStoreUrl ? 'key-value store' : 'in-memory'}`,
    input.config.concurrency === 0 ? 'concurrency 0 (admits only; other instances run the runs)' : `concurrency ${input.config.concurrency}`,
    `scheduler ${input.config.schedulerEnabled ? 'on' : 'off'}`,
    `fast start ${input.config.fastStart ? 'on' : 'off'}`,
    `code-host monitor ${input.config.codeHostMonitor.enabled ? 'on' : 'off'}`,
  ].join('; ');
  const configuredGaps = input.agents.agents.filter((a) => a.serviceExpected && !a.serviceUnitName).map((a) => a.id);

  return {
    status,
    statusReasons: observedFindings,
    checkedAt: input.now.toISOString(),
    controlPlane: {
      routing,
      queue: {
        queued: input.counts.ready,
        processing: input.counts.byStatus.running,
        held: input.counts.held,
        retrying: input.counts.byStatus.retrying,
      },
    },
    workers,
    repairs: input.repairs,
    dependencies: {
      persistence: p,
      knowledge: input.knowledge,
      codeHost: input.codeHost,
    },
    truthLayers: {
      configured: {
        status: configuredGaps.length === 0 ? 'declared' : 'incomplete',
        summary:
          configuredGaps.length === 0 ? configuredSummary : `${configuredSummary}; service-expected without a unit name: ${configuredGaps.join(', ')}`,
      },
      observed: {
        status,
        summary:
          observedFindings.length === 0
            ? `store ${p.database.status}, coordination ${p.coordination.store} ${p.coordination.status}, services ${serviceMode}, no open incidents`
            : observedFindings.join('; '),
        serviceMode,
      },
    },
    incidents: {
      overallStatus: input.incidents.overallStatus,
      openCount: input.incidents.openCount,
      activeCount: input.incidents.activeCount,
      bySeverity: input.incidents.bySeverity,
    },
  };
}

export type ExtendedHealth = ReturnType<typeof composeExtendedHealth>;
