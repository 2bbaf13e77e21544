import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { loadAgentRegistry } from './agents/registry.js';
import { formatManifestSkillProblem, loadSkillRegistry, validateManifestSkills } from './agents/skills.js';
import { createHeartbeatReader } from './agents/memory-recall.js';
import { createServiceProbe, serviceGapSignals, startServiceProbeTimer, systemctlRunShow } from './agents/service-probe.js';
import { preflightToolGate } from './agents/tool-gate.js';
import { createBusinessModule } from './business/module.js';
import { systemClock, type Clock } from './clock.js';
import type { AppConfig } from './config/types.js';
import { createCoordination } from './coordination/create.js';
import { createCacheInvalidator } from './coordination/cache-invalidator.js';
import { createCodeHostMonitor } from './aggregates/code-host-monitor.js';
import { buildServer } from './http/server.js';
import { createIncidentLedger } from './incidents/ledger.js';
import { createIncidentReadPort } from './incidents/read-model.js';
import { createIncidentService, type IncidentService } from './incidents/service.js';
import { buildServiceRoutes } from './http/service-routes.js';
import { composeKnowledge } from './knowledge/compose.js';
import { createMetrics, startMetricsServer } from './metrics.js';
import { startScheduler, type Scheduler } from './scheduler/scheduler.js';
import { openStateStore } from './store/open.js';
import { createControlPlaneSnapshot } from './tasks/control-plane-snapshot.js';
import { createCommunityResponseGate } from './tasks/community-response-gate.js';
import { IN_PROCESS_HANDLERS } from './tasks/handlers/index.js';
import { createTaskRuntime } from './tasks/runtime.js';
import { createWorkerSpawner } from './workers/spawn-worker.js';

export interface RunningApp {
  url: string;
  metricsUrl: string | null;
  stop(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 5000;
/** How often the incident sweep refreshes derived sources and lets the policies act. */
const INCIDENT_SWEEP_INTERVAL_MS = 30_000;

function urlFor(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Whether the response cache may be used. A cached read is invalidated by bumping tags in the
 * coordination store; with a store other instances write to (PostgreSQL) and no KV store, the
 * tags live in this process only, so another instance's write could not reach this process's
 * entries and a read could answer stale data until the TTL. The cache is then off.
 */
export function responseCacheSharing(storeExclusive: boolean, kvStoreUrl: string | null): boolean {
  return storeExclusive || kvStoreUrl !== null;
}

/**
 * Composition root: builds the store, coordination, runtime and HTTP server from the config,
 * runs restart recovery, admits the `startup` task and starts listening.
 */
export async function startApp(config: AppConfig, logger: Logger, clock: Clock = systemClock): Promise<RunningApp> {
  const serviceStartedAt = clock.now();
  const ownerId = `instance-${randomUUID()}`;
  mkdirSync(config.workspaceRoot, { recursive: true });

  const store = openStateStore(config.stateTarget, {
    flushIntervalMs: config.storeFlushIntervalMs,
    logger,
    databaseUrl: config.databaseUrl,
    ...(config.storeCompactAfterEntries !== null ? { compactAfterEntries: config.storeCompactAfterEntries } : {}),
  });
  await store.open();
  const coordination = await createCoordination(config.kvStoreUrl, logger, {
    keyPrefix: config.kvKeyPrefix,
    cacheMaxEntries: config.cache.maxEntries,
    cacheMaxBytes: config.cache.maxBytes,
  });
  const metrics = createMetrics();
  const invalidator = createCacheInvalidator(coordination);
  const registry = loadAgentRegistry(config.agentsDir);
  const skills = loadSkillRegistry();
  // A grant of a skill the registry does not govern is a broken manifest: stop, naming file and field.
  const [skillProblem] = validateManifestSkills(registry.list(), skills);
  if (skillProblem) throw new Error(formatManifestSkillProblem(skillProblem));
  const spawner = createWorkerSpawner({ config, registry, logger });

  const incidentLedger = createIncidentLedger({ store, coordination, clock, invalidator, logger });
  // The incident service needs the runtime's admission; the runtime tells it of settled runs.
  let incidents: IncidentService | null = null;
  // Bound once the scheduler starts (after the runtime); finished runs feed its retention.
  let scheduler: Scheduler | null = null;
  const incidentReadPort = createIncidentReadPort(incidentLedger);
  const controlPlaneSnapshot = createControlPlaneSnapshot({
    store,
    clock,
    config,
    agents: registry,
    serviceStartedAt,
    stateStoreKind: ({ sql: 'sqlite', file: 'file', postgres: 'postgres' } as const)[store.kind],
    coordinationKind: coordination.kind === 'kvstore' ? 'redis' : 'memory',
    incidents: incidentReadPort,
  });
  // The knowledge index, its repair loop and doc watcher; they admit work through the runtime below.
  const knowledge = composeKnowledge({
    config,
    store,
    coordination,
    clock,
    logger,
    invalidator,
    ownerId,
    admit: (request) => runtime.admit(request),
  });
  // The business handlers admit work themselves, through the runtime below (bound at call time).
  const business = createBusinessModule({
    config,
    store,
    coordination,
    clock,
    logger,
    admit: (request) => runtime.admit(request),
  });

  const runtime = createTaskRuntime({
    onRunSettled: (run) => {
      incidents?.onRunSettled(run);
      scheduler?.noteRunFinished();
    },
    config,
    store,
    clock,
    logger,
    invalidator,
    handlers: { ...IN_PROCESS_HANDLERS, ...knowledge.handlers, ...business.handlers },
    onRunFinished: knowledge.onRunFinished,
    spawner,
    ownerId,
    serviceStartedAt,
    controlPlaneSnapshot,
    preflightToolGate: (taskType, agentId) => {
      const agent = registry.get(agentId);
      return preflightToolGate({
        taskType,
        agent: { id: agentId, allowedSkills: agent?.allowedSkills ?? [] },
        registry: skills,
        now: clock.now().toISOString(),
      });
    },
    communityResponseGate: createCommunityResponseGate({ coordination, clock, config }),
  });
  metrics.setQueueDepthSource(async () => {
    const counts = await store.countRuns(true);
    return { ready: counts.ready, held: counts.held, running: counts.byStatus.running };
  });

  // Host truth about resident service units, probed off the request path; the overview reads
  // the cached reading (stale after 3 minutes, when it reports the probe as unavailable).
  const probe = createServiceProbe({ runShow: systemctlRunShow, ttlMs: 180_000 });
  const serviceUnits = registry.list().flatMap((a) => (a.serviceExpected && a.serviceUnitName ? [a.serviceUnitName] : []));
  const stopProbe = startServiceProbeTimer(probe, serviceUnits, 60_000);

  // CI status of the code host, probed off the request path (`disabled` unless configured).
  const codeHost = createCodeHostMonitor(config.codeHostMonitor, { now: () => clock.now() });
  const stopCodeHost = codeHost.start();
  incidents = createIncidentService({
    ledger: incidentLedger,
    admit: runtime.admit,
    checkTaskRequest: runtime.checkTrigger,
    store,
    coordination,
    clock,
    logger,
    webhookSecret: config.webhookSecret,
    serviceGaps: () => serviceGapSignals(registry.list(), (unit) => probe.current(unit)),
    knowledgeHealth: knowledge.knowledgeStats,
  });

  let metricsPort: number | null = null;
  const routes = buildServiceRoutes({
    config,
    clock,
    store,
    coordination,
    runtime,
    agents: registry,
    skills,
    probe,
    serviceHeartbeat: createHeartbeatReader(config.logsDir),
    incidents,
    metricsPort: () => metricsPort,
    codeHost,
    controlPlaneSnapshot,
    serviceStartedAt,
    // Read ports of the aggregates (proof is built beside its routes).
    aggregatePorts: {
      incidents: incidentReadPort,
      knowledge: { stats: knowledge.knowledgeStats },
      repairs: { counts: knowledge.repairStats },
      business: { summary: business.service.summary },
    },
    knowledge: knowledge.service,
    business: business.service,
  });
  const responseCacheEnabled = responseCacheSharing(store.exclusive, config.kvStoreUrl);
  if (!responseCacheEnabled) {
    logger.warn(
      { store: store.target },
      'the state store is shared by instances but no KV store is configured: response cache off (set KV_STORE_URL to share it, and rate limits and locks with it)',
    );
  }
  const server = await buildServer({ config, coordination, logger, metrics, responseCacheEnabled }, routes);

  await runtime.start();
  await knowledge.start();
  scheduler = startScheduler({
    config,
    clock,
    logger,
    store,
    admit: runtime.admit,
    admitDueRetries: runtime.admitDueRetries,
    invalidator,
    businessCycle: business.service.evaluateSchedule,
  });
  const stopIncidentSweeps = incidents.startSweeps(INCIDENT_SWEEP_INTERVAL_MS);
  // Every start records a `startup` run (internal); its milestone is appended when it finishes.
  await runtime.admit({
    type: 'startup',
    payload: {},
    source: 'startup',
    requestedBy: 'system',
    forceRunId: `startup:${serviceStartedAt.toISOString()}:${ownerId.slice(-8)}`,
  });

  await server.listen({ port: config.port, host: config.host });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let metricsServer: { port: number; close(): Promise<void> } | null = null;
  if (config.metricsEnabled) {
    metricsServer = await startMetricsServer(metrics, config.host, config.metricsPort);
    metricsPort = metricsServer.port;
  }

  let stopped = false;
  return {
    url: urlFor(config.host, port),
    metricsUrl: metricsServer ? `${urlFor(config.host, metricsServer.port)}/metrics` : null,
    async stop() {
      if (stopped) return;
      stopped = true;
      scheduler.stop();
      stopProbe();
      stopCodeHost();
      await knowledge.stop();
      await server.close();
      await runtime.stop(SHUTDOWN_GRACE_MS);
      await stopIncidentSweeps();
      await metricsServer?.close();
      await coordination.close();
      await store.close();
    },
  };
}
