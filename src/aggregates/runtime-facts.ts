import type { RegisteredAgent } from '../agents/registry.js';
import type { ServiceUnitReading } from '../agents/service-probe.js';
import type { AppConfig } from '../config/types.js';
import { taskCatalog } from '../runtime/catalog.js';

const typesWhere = (fact: (e: ReturnType<typeof taskCatalog>[number]) => boolean) => taskCatalog().filter(fact).map((e) => e.type);
import type { RunRecord } from '../domain/run-record.js';
import { persistenceMode } from './persistence-view.js';
import { shownTarget } from '../store/shown-target.js';
import { heartbeatType } from '../lanes/heartbeat/definition.js';

export interface RuntimeFactsInput {
  now: Date;
  config: Pick<
    AppConfig,
    | 'stateTarget'
    | 'stateOverridden'
    | 'kvStoreUrl'
    | 'heartbeatCron'
    | 'nightlyBatchCron'
    | 'schedulerEnabled'
    | 'fastStart'
    | 'concurrency'
    | 'runRetention'
    | 'retry'
    | 'workerTimeoutMs'
  >;
  storeKind: string;
  coordinationStore: 'memory' | 'kvstore';
  lastHeartbeat: RunRecord | null;
  agents: readonly RegisteredAgent[];
  probe: (unit: string) => ServiceUnitReading;
}

/**
 * What this process actually runs with: the effective persistence mode (not the one asked for
 * when they differ), the heartbeat schedule and its last run, how task types are classified, and
 * which agents the runtime contract expects as resident services with what the host shows of them.
 */
export function composeRuntimeFacts(input: RuntimeFactsInput) {
  const { config } = input;
  const expected = input.agents.filter((a) => a.serviceExpected);
  return {
    generatedAt: input.now.toISOString(),
    persistence: {
      mode: persistenceMode(input.storeKind, config.stateTarget),
      target: shownTarget(config.stateTarget),
      stateOverridden: config.stateOverridden,
      inheritedByWorkers: config.stateOverridden,
      coordination: input.coordinationStore === 'kvstore' ? 'redis' : 'memory',
      coordinationConfigured: config.kvStoreUrl !== null ? 'redis' : 'memory',
    },
    heartbeat: {
      cron: config.heartbeatCron,
      schedulerEnabled: config.schedulerEnabled,
      taskType: heartbeatType.type,
      visibleWith: 'GET /api/tasks/runs?includeInternal=true',
      lastRunId: input.lastHeartbeat?.runId ?? null,
      lastRunAt: input.lastHeartbeat ? (input.lastHeartbeat.finishedAt ?? input.lastHeartbeat.createdAt) : null,
      lastStatus: input.lastHeartbeat?.status ?? null,
    },
    schedules: { nightlyBatchCron: config.nightlyBatchCron },
    taskClassification: {
      internalOnly: typesWhere((e) => e.internalOnly),
      publicTriggerable: taskCatalog().filter((e) => e.publicTriggerable).map((e) => e.type),
      approvalGatedByDefault: typesWhere((e) => e.approvalGated),
      controlPlaneLanes: typesWhere((e) => e.readsControlPlane),
      inProcessHandlers: taskCatalog().filter((e) => e.executor === 'handler').map((e) => e.type),
      workerLanes: taskCatalog().filter((e) => e.executor === 'worker').map((e) => e.type),
    },
    residentServices: {
      expectedCount: expected.length,
      workerFirstCount: input.agents.length - expected.length,
      expected: expected.map((a) => {
        const reading = a.serviceUnitName ? input.probe(a.serviceUnitName) : null;
        return {
          agentId: a.id,
          lifecycleMode: a.lifecycleMode,
          serviceUnitName: a.serviceUnitName,
          hostServiceStatus: reading?.hostServiceStatus ?? 'no-unit-declared',
          serviceInstalled: reading?.serviceInstalled ?? null,
          serviceRunning: reading?.serviceRunning ?? null,
        };
      }),
    },
    execution: {
      fastStart: config.fastStart,
      concurrency: config.concurrency,
      runRetention: config.runRetention,
      workerTimeoutMs: config.workerTimeoutMs,
      retry: { ...config.retry },
    },
  };
}

export type RuntimeFacts = ReturnType<typeof composeRuntimeFacts>;
