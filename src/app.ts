import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { loadAgentRegistry } from './agents/registry.js';
import { formatManifestSkillProblem, loadSkillRegistry, validateManifestSkills } from './agents/skills.js';
import { createHeartbeatReader } from './agents/memory-recall.js';
import { createServiceProbe, serviceGapSignals, startServiceProbeTimer, systemctlRunShow } from './agents/service-probe.js';
import { preflightToolGate } from './agents/tool-gate.js';
import { createCodeHostMonitor } from './aggregates/code-host-monitor.js';
import { createCompanionBriefs } from './aggregates/companion.js';
import { persistenceMode } from './aggregates/persistence-view.js';
import { createAggregateReaders } from './aggregates/readers.js';
import { createBusinessModule } from './business/module.js';
import { systemClock, type Clock } from './clock.js';
import { narrowConfig } from './config/narrow.js';
import type { AppConfig } from './config/types.js';
import type { Coordination } from './coordination/types.js';
import { createCacheInvalidator } from './coordination/cache-invalidator.js';
import { createCoordination } from './coordination/create.js';
import { configError } from './config/errors.js';
import { createWakeSignal } from './domain/wake-signal.js';
import { SERVICE_RUN_ID_PREFIXES } from './domain/service-run-ids.js';
import { createLiveEvents } from './events/compose.js';
import type { EventChannelObserver } from './events/event-channel.js';
import { buildServer } from './http/server.js';
import { createApprovalLinks, type ApprovalLinks } from './tokens/approval-links.js';
import { createTokenService } from './tokens/scoped-tokens.js';
import { signingKey } from './tokens/signed-text.js';
import { tagsOf } from './domain/run-tags.js';
import { buildServiceRoutes } from './http/service-routes.js';
import { createApprovalEscalation } from './incidents/approval-escalation.js';
import { createIncidentLedger } from './incidents/ledger.js';
import { createIncidentReadPort } from './incidents/read-model.js';
import { createIncidentService } from './incidents/service.js';
import { composeKnowledge } from './knowledge/compose.js';
import { knowledgeLanes } from './lanes/knowledge-lanes.js';
import { communityResponseLane } from './lanes/community-response/index.js';
import { controlPlaneLanes } from './lanes/control-plane.js';
import { marketResearchLane } from './lanes/market-research.js';
import { projectCodeLanes } from './lanes/project-code.js';
import { integrationWorkflowLanes } from './lanes/integration-workflow/hooks.js';
import { createMetrics, startMetricsServer, type Metrics } from './metrics.js';
import { knownModels } from './metrics/known-models.js';
import { UNMEASURED } from './metrics/service-run-metrics.js';
import { createMilestoneRecorder } from './proof/milestone-recorder.js';
import { createProofFeed } from './proof/proof-feed.js';
import { createRunLogBook } from './runlogs/run-log-book.js';
import { createSecretRedactor } from './redaction/known-secrets.js';
import { serviceSecrets } from './redaction/service-secrets.js';
import { alertSinkSecrets } from './alerts/sink-secrets.js';
import { conditionSources } from './alerts/condition-sources.js';
import { createAlertService } from './alerts/service.js';
import { createScheduler } from './scheduler/scheduler.js';
import { createSchedulesModule } from './schedules/module.js';
import { createFlowService } from './flows/flow-service.js';
import { openStateStore } from './store/open.js';
import type { StateStore } from './store/types.js';
import { createAdmission, type SlotReservation } from './runtime/admission.js';
import { createApprovalPolicy } from './runtime/approval-policy.js';
import { taskCatalog } from './runtime/catalog.js';
import { createCatalogView } from './runtime/catalog-view.js';
import { createControlPlaneSnapshot } from './lanes/control-plane-snapshot.js';
import { coreHandlerLanes } from './lanes/core-handlers.js';
import { createLaneRegistry, type LaneDefinition } from './runtime/lanes.js';
import { BUILT_IN_TASK_TYPES } from './lanes/built-in.js';
import { createOperatorTypes, withOperatorConcurrency } from './operator-types/operator-types.js';
import { createTaskTypeReload } from './operator-types/reload.js';
import type { TaskType } from './task-types/task-type.js';
import { agentModelName, createModels } from './models/index.js';
import { admitDueRetries } from './runtime/retry-scanner.js';
import { createTaskRuntime, queueDepthOf } from './runtime/runtime.js';
import type { LimitsChange } from './runtime/limits-reload.js';
import { startTracing } from './tracing/setup.js';
import type { ServiceTracer } from './tracing/service-tracer.js';
import { createTriggerCheck } from './runtime/trigger-check.js';
import { createGroupLedger, endPreviousLifeGroups, groupLedgerDir } from './workers/group-ledger.js';
import { createWorkerSpawner } from './workers/spawn-worker.js';
import { resolveWorkerTimeout } from './workers/resolve-timeout.js';
import { startupType } from './lanes/startup/definition.js';
import { createStartupPhases, type StartupPhaseRecorder, type StartupPhases } from './startup-phases.js';

export interface RunningApp {
  url: string;
  metricsUrl: string | null;
  /** Config `limits` read again from the config file (SIGHUP): what changed; throws (a conflict) when the file does not load. */
  reloadLimits(): LimitsChange;
  /** When each start-up phase ended, in ms since the process started (src/startup-phases.ts). */
  startupPhases: StartupPhases;
  stop(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 5000;
/** How often the incident sweep refreshes derived sources and lets the policies act. */
const INCIDENT_SWEEP_INTERVAL_MS = 30_000;
/** Telemetry records (accepted, queued) kept in the store. */
const TELEMETRY_RETENTION = 5000;

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

/** What the service is built over: its stores, opened by the caller, and the metrics listener's port. */
export interface ServiceInfrastructure {
  config: AppConfig;
  logger: Logger;
  clock: Clock;
  store: StateStore;
  coordination: Coordination;
  /** The metrics listener's port (null when metrics are off); the health route names it. */
  metricsPort: number | null;
  /** Spans of requests and runs (src/tracing/); absent: tracing off. */
  tracer?: ServiceTracer;
  /** The event channel's metrics (src/metrics.ts), asked for only when instances share a store. */
  eventChannelObserver?: () => EventChannelObserver;
  /**
   * Task types beside the built-in ones, each its module and its lane hooks (an in-process
   * handler, ...): a service composed with them knows them everywhere a built-in type is known.
   */
  extraTaskTypes?: { types: readonly TaskType[]; lanes: readonly LaneDefinition[] };
  /** The run metrics (src/metrics/, docs/metrics.md); absent: runs are not measured. */
  runMetrics?: Metrics['runMetrics'];
}

/**
 * The composition root: builds every part of the service in dependency order (the admission
 * path, the modules that admit work, the lanes, the runtime, the read models, the route table)
 * and starts nothing. Each part is finished when the next one receives it; nothing is bound
 * later. `startApp` starts the parts; tests build the same parts to reach the real route table.
 */
export function composeService(infra: ServiceInfrastructure) {
  const { logger, clock, store, coordination } = infra;
  // The task types this service knows, installed before anything reads the catalog: the built-in
  // ones, those it was composed with, and the operator's folder (a refused manifest stops here).
  const operatorTypes = createOperatorTypes(infra.config, [...BUILT_IN_TASK_TYPES, ...(infra.extraTaskTypes?.types ?? [])]);
  operatorTypes.install();
  // A run limit an operator type's manifest declares, unless the operator set one for it; a
  // reload changes these limits in place (the runner reads them at each claim).
  const config = withOperatorConcurrency(infra.config, operatorTypes);
  const serviceStartedAt = clock.now();
  const ownerId = `instance-${randomUUID()}`;
  const now = () => clock.now();
  const invalidator = createCacheInvalidator(coordination);

  // Agents, their skills and host truth about resident services (probed off the request path;
  // the overview reads the cached reading, stale after 3 minutes).
  const registry = loadAgentRegistry(config.agentsDir);
  const skills = loadSkillRegistry();
  // A grant of a skill the registry does not govern is a broken manifest: stop, naming file and field.
  const [skillProblem] = validateManifestSkills(registry.list(), skills);
  if (skillProblem) throw configError(formatManifestSkillProblem(skillProblem));
  // The service's own secrets are replaced wherever a run keeps text it did not write itself: its
  // payload (admission), what its attempts leave (finalize), operators' notes and reasons, its logs.
  // The alert sinks' signing secrets are the service's too.
  const secrets = [...serviceSecrets(config), ...alertSinkSecrets(config.alerts)];
  const redact = createSecretRedactor(secrets);
  // What each attempt prints, kept per attempt in the store; the event streams subscribe to its live lines.
  const runLogs = createRunLogBook({ store, clock, logger, secrets });
  // The worker process groups this life starts are recorded, so that the next start can end
  // them if this process dies without stopping them (src/workers/group-ledger.ts).
  const groupLedger = createGroupLedger(groupLedgerDir(config), logger);
  // Run metrics count what this instance's admission, runtime and model gateway write through
  // `runStore` and the workers its spawner could not start (docs/metrics.md).
  const runMetrics = infra.runMetrics?.({ types: taskCatalog().map((e) => e.type), models: knownModels(config.llm, registry.list()), buckets: config.limits }) ?? UNMEASURED;
  const runStore = runMetrics.observeStore(store);
  // The agents a spawn or a model call may serve: the registry's, and the operator types' program worker.
  const workerAgents = operatorTypes.agents(registry);
  const spawner = runMetrics.observeSpawner(
    operatorTypes.spawner(createWorkerSpawner({ config, registry: workerAgents, logger, cancelGraceMs: config.cancelGraceMs, groupLedger })),
  );
  const probe = createServiceProbe({ runShow: systemctlRunShow, ttlMs: 180_000 });
  // Every model call goes through one gateway: metered into its run, within the shared daily budget (docs/models.md).
  const models = createModels({
    config: config.llm,
    store: runStore,
    coordination,
    clock,
    logger,
    registry: workerAgents,
    secrets,
    attemptTimeoutMs: (lane) => resolveWorkerTimeout(undefined, lane, config, workerAgents.forLane(lane)?.timeoutMs),
  });
  const modelOf = (agent: { lanes: string[]; model: { tier: string; name: string | null } }) => (models.configured ? agentModelName(agent, config.llm) : null);
  const agents = { registry, store, probe, skills, serviceHeartbeat: createHeartbeatReader(config.logsDir), now, modelOf };

  // The one admission path; the runner built below subscribes to its wake-ups.
  const readyRuns = createWakeSignal();
  // A policy key that is no task type stops the start (invalid_config), like a broken manifest.
  const approvalPolicy = createApprovalPolicy(config.approvalPolicy, taskCatalog().map((e) => e.type));
  // Bound to the runner once it exists: an admission finding a free slot starts its run at once.
  let reserveSlot: (type: string, concurrencyKey: string | null) => SlotReservation | null = () => null;
  const admit = operatorTypes.stampAdmissions(createAdmission({
    store: runStore,
    clock,
    invalidator,
    onReady: () => readyRuns.notify(),
    telemetryRetention: TELEMETRY_RETENTION,
    approvalPolicy,
    tracer: infra.tracer,
    reserveSlot: (type, concurrencyKey) => reserveSlot(type, concurrencyKey),
    redact,
  }));

  // The modules that admit work of their own.
  const incidentLedger = createIncidentLedger({ store, coordination, clock, invalidator, logger });
  const incidentReadPort = createIncidentReadPort(incidentLedger);
  runMetrics.readSharedState({ store, incidents: incidentReadPort, now, limits: config.limits });
  const knowledge = composeKnowledge({ config, store, coordination, clock, logger, invalidator, ownerId, admit });
  const business = createBusinessModule({ config, store, coordination, clock, logger, admit });
  const scheduler = createScheduler({
    config,
    clock,
    logger,
    store,
    admit,
    admitDueRetries: () => admitDueRetries({ store, clock, admit, logger }),
    invalidator,
    businessCycle: business.service.evaluateSchedule,
    afterPrune: runLogs.sweep,
  });

  // The lanes: what each task type registers beyond its catalog entry.
  const controlPlaneSnapshot = createControlPlaneSnapshot({
    store,
    clock,
    config,
    agents: registry,
    serviceStartedAt,
    stateStoreKind: persistenceMode(store.kind, store.target),
    coordinationKind: coordination.kind === 'kvstore' ? 'redis' : 'memory',
    incidents: incidentReadPort,
  });
  const lanes = createLaneRegistry(taskCatalog(), [
    ...coreHandlerLanes({ config, serviceStartedAt, queueDepth: () => queueDepthOf(store) }),
    ...knowledgeLanes(knowledge),
    ...business.lanes,
    communityResponseLane({
      store,
      invalidator,
      coordination,
      clock,
      config: narrowConfig(config, ['knowledgePackDir', 'docsPath', 'communityDraftsPath', 'logsDir', 'communityResponse']),
    }),
    marketResearchLane(config.marketResearch),
    ...projectCodeLanes(config.sandbox),
    ...integrationWorkflowLanes({ store, logger, invalidator, admit, workspaceRoot: config.workspaceRoot, now: () => clock.now() }),
    ...controlPlaneLanes(taskCatalog(), controlPlaneSnapshot),
    ...(infra.extraTaskTypes?.lanes ?? []),
  ]);

  // Every admission path checks a request through it, the lanes' admission checks included.
  const checkTrigger = createTriggerCheck(config.workspaceRoot, lanes);
  const incidents = createIncidentService({
    ledger: incidentLedger,
    admit,
    checkTaskRequest: checkTrigger,
    store,
    coordination,
    clock,
    logger,
    webhookSecret: config.webhookSecret,
    serviceGaps: () => serviceGapSignals(registry.list(), (unit) => probe.current(unit)),
    knowledgeHealth: knowledge.knowledgeStats,
  });

  // Alert rules read runs and incidents from the shared store; a finished run re-evaluates them.
  // The approval links are made once the runtime's approvals exist (below); an alert sent before has none.
  let linkMaker: ApprovalLinks | null = null;
  const alerts = createAlertService({
    config: config.alerts,
    store,
    clock,
    logger,
    ownerId,
    sources: conditionSources(store, incidentLedger),
    approvalLinks: { linksForEligible: async (approvalId) => (linkMaker === null ? [] : linkMaker.linksForEligible(approvalId, 'alerts')) },
  });

  const runtime = createTaskRuntime({
    config,
    store: runStore,
    clock,
    logger,
    invalidator,
    admit,
    readyRuns,
    checkTrigger,
    lanes,
    spawner,
    ownerId,
    approvalPolicy,
    approvalEscalation: createApprovalEscalation({ ledger: incidentLedger, clock, runPolicies: incidents.runPolicies }),
    runLogs,
    modelChannel: models.channel,
    modelGateway: models.gateway,
    preflightToolGate: (taskType, agentId) =>
      preflightToolGate({
        taskType,
        agent: { id: agentId, allowedSkills: registry.get(agentId)?.allowedSkills ?? [] },
        registry: skills,
        now: clock.now().toISOString(),
      }),
    runListeners: [
      createMilestoneRecorder({ store, invalidator, now }),
      (run) => incidents.onRunSettled(run),
      () => scheduler.noteRunFinished(),
      () => alerts.onRunSettled(),
    ],
    // A settled step moves its flow on (promotes, skips or ends it).
    onRunSettled: (run) => flows.onRunSettled(run),
    tracer: infra.tracer,
    redact,
    // A run of an operator type whose program snapshot this instance lacks and cannot rebuild is handed back.
    cannotRunHere: (run) => operatorTypes.cannotRunHere(run),
  });
  reserveSlot = runtime.reserveSlot;
  // Program snapshots no type and no unfinished run needs are removed at start (and after each reload).
  void operatorTypes.pruneSnapshots(store, logger);
  // Flows of runs: admitted through the same admission, cancelled through the runtime's cancel.
  const flows = createFlowService({
    store: runStore,
    clock,
    logger,
    invalidator,
    admit,
    checkTrigger,
    onReady: () => readyRuns.notify(),
    cancelRun: (runId, reason, identity) => runtime.cancelRun(runId, reason, identity),
  });
  // User schedules fire through the same admission (a flow schedule through the flows); overlap
  // `cancel-previous` cancels through the runtime's cancel, acting as the schedule.
  const schedules = createSchedulesModule({
    config,
    store,
    clock,
    logger,
    admit,
    checkTrigger,
    cancelRun: (runId, actor, reason) => runtime.cancelRun(runId, reason, { actor, role: 'operator', apiKeyLabel: actor, apiKeyExpiresAt: null }),
    // A flow schedule's firings are admitted, read and cancelled as flows.
    flows,
    redact,
  });

  // Read models behind the aggregate, companion and proof routes.
  const codeHost = createCodeHostMonitor(config.codeHostMonitor, { now });
  const proofFeed = createProofFeed({ store, now });
  const catalog = createCatalogView(store);
  const aggregatePorts = {
    proof: proofFeed,
    incidents: incidentReadPort,
    knowledge: { stats: knowledge.knowledgeStats },
    repairs: { counts: knowledge.repairStats },
    business: { summary: business.service.summary },
  };
  const aggregates = createAggregateReaders({
    config,
    clock,
    store,
    coordination,
    agents,
    codeHost,
    ports: aggregatePorts,
    serviceStartedAt,
    modelBudget: async () => ({ limitUsd: models.budget.limitUsd, remainingUsd: await models.budget.remainingUsd() }),
  });
  const companion = createCompanionBriefs({
    store,
    incidents: incidentReadPort,
    proof: proofFeed,
    business: aggregatePorts.business,
    controlPlaneSnapshot,
    catalog,
    pendingApprovals: () => runtime.approvals.listPending(),
    now,
  });

  // Live event streams: one feed reader per instance, whatever the number of clients (docs/events.md).
  // Log lines kept by this instance's attempts go out live on the run streams of every instance.
  const events = createLiveEvents({
    config,
    store,
    logger,
    instanceId: ownerId,
    liveLogs: { subscribe: (_runId, listener) => runLogs.subscribe(listener) },
    ...(infra.eventChannelObserver ? { channelObserver: infra.eventChannelObserver } : {}),
  });
  // Runs admitted or freed by another instance wake this runner through the channel's
  // LISTEN/NOTIFY; the runner's poll stays as the safety net for a lost notification. Another
  // instance's claims wake nobody (claiming after them found nothing, three statements each),
  // nor do its finishes unless a per-type limit may have been waiting for the slot.
  const typeLimited = () => Object.keys(config.typeConcurrency).length > 0 || config.limits.length > 0;
  events.onOtherInstanceWrite((written) => {
    if (written.readyRuns || (typeLimited() && written.runsLeftRunning)) readyRuns.notify();
  });

  // Scoped read tokens for browsers, signed with a key no response or log carries (docs/tokens.md).
  const credentialKey = signingKey(config.tokenSigningSecret, config.webhookSecret);
  const tokens = createTokenService({ store, clock, key: credentialKey });
  // Approval links stand for the key of the approver they name, for one approval (docs/approvals-and-reruns.md).
  const approvalLinks = createApprovalLinks({ clock, key: credentialKey, keys: config.apiKeys, approvals: runtime.approvals });
  linkMaker = approvalLinks;

  const routes = buildServiceRoutes({
    config,
    clock,
    store,
    coordination,
    runtime,
    catalog,
    agents,
    skills,
    incidents,
    knowledge: knowledge.service,
    business: business.service,
    proofFeed,
    aggregates,
    companion,
    runLogs,
    schedules: schedules.service,
    flows,
    metricsPort: infra.metricsPort,
    events,
    alerts,
    // A reload's types get their own metric label values, and its run limits may free waiting runs.
    taskTypes: createTaskTypeReload({
      operatorTypes,
      invalidator,
      logger,
      afterReload: () => {
        runMetrics.knowTypes(taskCatalog().map((e) => e.type));
        readyRuns.notify();
        void operatorTypes.pruneSnapshots(store, logger);
      },
    }),
    tokens,
    approvalLinks,
  });

  // A `tag` token's scope check reads the run's tags (docs/tokens.md).
  const scopeLookups = {
    runTags: async (runId: string) => {
      const run = await store.getRun(runId);
      return run === null ? null : tagsOf(run);
    },
  };

  return { tokens, approvalLinks, scopeLookups, alerts, serviceStartedAt, ownerId, registry, probe, codeHost, admit, lanes, knowledge, incidents, scheduler, schedules, runtime, flows, runLogs, routes, events, models };
}

/**
 * Opens the stores, composes the service (composeService), runs restart recovery, admits the
 * `startup` task and listens.
 */
export async function startApp(
  config: AppConfig,
  logger: Logger,
  clock: Clock = systemClock,
  phases: StartupPhaseRecorder = createStartupPhases(),
): Promise<RunningApp> {
  mkdirSync(config.workspaceRoot, { recursive: true });
  const store = openStateStore(config.stateTarget, {
    flushIntervalMs: config.storeFlushIntervalMs,
    logger,
    databaseUrl: config.databaseUrl,
    ...(config.storeCompactAfterEntries !== null ? { compactAfterEntries: config.storeCompactAfterEntries } : {}),
  });
  await store.open();
  phases.end('storeOpenMs');
  const coordination = await createCoordination(config.kvStoreUrl, logger, {
    keyPrefix: config.kvKeyPrefix,
    cacheMaxEntries: config.cache.maxEntries,
    cacheMaxBytes: config.cache.maxBytes,
  });
  // Off unless an OTLP endpoint is configured; then the SDK is loaded (docs/tracing.md).
  const tracing = await startTracing(process.env, logger);
  const metrics = createMetrics();
  metrics.setQueueDepthSource(async () => {
    const counts = await store.countRuns(true);
    return { ready: counts.ready, held: counts.held, running: counts.byStatus.running };
  });
  // Metrics listen first, so the health route can name their port.
  const metricsServer = config.metricsEnabled ? await startMetricsServer(metrics, config.host, config.metricsPort) : null;
  const service = composeService({
    config,
    logger,
    clock,
    store,
    coordination,
    metricsPort: metricsServer?.port ?? null,
    tracer: tracing.tracer,
    eventChannelObserver: () => metrics.eventChannelObserver(),
    runMetrics: (labels) => metrics.runMetrics(labels),
  });
  const { registry, probe, codeHost, knowledge, incidents, scheduler, schedules, runtime } = service;

  const responseCacheEnabled = responseCacheSharing(store.exclusive, config.kvStoreUrl);
  if (!responseCacheEnabled) {
    logger.warn(
      { store: store.target },
      'the state store is shared by instances but no KV store is configured: response cache off (set KV_STORE_URL to share it, and rate limits and locks with it)',
    );
  }
  const server = await buildServer({ config, coordination, logger, metrics, responseCacheEnabled, tracer: tracing.tracer, tokens: service.tokens, approvalLinks: service.approvalLinks, scopeLookups: service.scopeLookups }, service.routes);
  phases.end('composedMs');

  // Start: the code host monitor, recovery and the runner, knowledge, the scheduler and the
  // incident sweeps; the host probe once the service listens (below).
  const stopCodeHost = codeHost.start();
  // Whatever worker processes a previous life of the service left are ended before restart
  // recovery runs their attempts again: an attempt must never run twice at once.
  await endPreviousLifeGroups(groupLedgerDir(config), logger);
  await runtime.start();
  // After the runtime's recovery: the first sweep completes cut admissions and missed promotions.
  await service.flows.start();
  await knowledge.start();
  scheduler.start();
  schedules.timer.start();
  service.alerts.start();
  const stopIncidentSweeps = incidents.startSweeps(INCIDENT_SWEEP_INTERVAL_MS);
  // Every start records a `startup` run (internal); its milestone is appended when it finishes.
  await service.admit({
    type: startupType.type,
    payload: {},
    source: 'startup',
    requestedBy: 'system',
    forceRunId: `${SERVICE_RUN_ID_PREFIXES.startup}${service.serviceStartedAt.toISOString()}:${service.ownerId.slice(-8)}`,
  });
  phases.end('recoveredMs');

  await server.listen({ port: config.port, host: config.host });
  phases.end('listeningMs');
  // After the listen: each unit's probe spawns `systemctl`, which the first answer need not wait
  // for (a reading is `not-probed` until its probe returns either way).
  const stopProbe = startServiceProbeTimer(
    probe,
    registry.list().flatMap((a) => (a.serviceExpected && a.serviceUnitName ? [a.serviceUnitName] : [])),
    60_000,
  );
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let stopped = false;
  return {
    url: urlFor(config.host, port),
    metricsUrl: metricsServer ? `${urlFor(config.host, metricsServer.port)}/metrics` : null,
    /** Config `limits` read again from the config file (SIGHUP; POST /api/limits/reload). */
    reloadLimits: () => runtime.reloadLimits(),
    startupPhases: phases.snapshot(),
    async stop() {
      if (stopped) return;
      stopped = true;
      scheduler.stop();
      await service.alerts.stop();
      await schedules.timer.stop();
      stopProbe();
      stopCodeHost();
      await knowledge.stop();
      // Open event streams would hold the server's close until their clients left.
      await service.events.close();
      await server.close();
      service.flows.stop();
      await runtime.stop(SHUTDOWN_GRACE_MS);
      await service.models.channel.close();
      await stopIncidentSweeps();
      await metricsServer?.close();
      await coordination.close();
      await store.close();
      // Last: the spans of the runs finished during shutdown are exported too.
      await tracing.shutdown();
    },
  };
}
