import { agentsLifecycle, type AgentsOverviewDeps } from '../agents/overview.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import { ACCOUNTING_WINDOW, rollupAccounting, type LiveBudget } from './accounting-rollup.js';
import type { CodeHostMonitor } from './code-host-monitor.js';
import { composeDashboard, RETRY_SCAN_LIMIT } from './dashboard.js';
import { composeExtendedHealth } from './extended-health.js';
import { persistenceView } from './persistence-view.js';
import { readPort, type AggregateReadPorts } from './read-ports.js';
import { composeRuntimeFacts } from './runtime-facts.js';
import { composeRunStats, RUN_STATS_SCAN_LIMIT, type RunStatsWindow } from './run-stats.js';
import { communityResponseType } from '../lanes/community-response/definition.js';
import { heartbeatType } from '../lanes/heartbeat/definition.js';

export interface AggregateDeps {
  config: AppConfig;
  clock: Clock;
  store: StateStore;
  coordination: Coordination;
  /** The agents overview's dependencies: worker and service counts use its lifecycle computation. */
  agents: AgentsOverviewDeps;
  codeHost: CodeHostMonitor;
  ports: AggregateReadPorts;
  serviceStartedAt: Date;
  /** Today's shared model budget (src/models/daily-budget.ts); absent, the newest run's snapshot stands in. */
  modelBudget?: () => Promise<LiveBudget>;
}

const KNOWLEDGE_KEYS = ['indexedEntries', 'conceptCount'] as const;
const REPAIR_KEYS = ['activeCount', 'verifiedCount', 'failedCount'] as const;

/**
 * Extended health, the dashboard and runtime facts, each from aggregated counts (countRuns) and
 * bounded store reads: no read walks every stored run record. Routes cache the answers by tag.
 */
export function createAggregateReaders(deps: AggregateDeps) {
  const { store, ports } = deps;
  const readRepairs = () => readPort(REPAIR_KEYS, 'repair loop', ports.repairs && (() => ports.repairs!.counts()));
  const readPersistence = async () => {
    const [health, coordination] = await Promise.all([store.health(), deps.coordination.status()]);
    return persistenceView(store.kind, health, coordination);
  };

  /** The accounting rollup of the newest finished runs, which dashboard and extended health share. */
  const readAccounting = async () => {
    const [window, community, budget] = await Promise.all([
      store.listRuns({ includeInternal: true, limit: ACCOUNTING_WINDOW, order: 'newest' }),
      store.listRuns({ type: communityResponseType.type, includeInternal: true, limit: 1, order: 'newest' }),
      deps.modelBudget ? deps.modelBudget() : Promise.resolve(undefined),
    ]);
    return rollupAccounting(window.items, community.items[0] ?? null, budget);
  };

  return {
    /** Changes whenever the code-host reading does: extended health's cache keys carry it. */
    codeHostCheckedAt: () => deps.codeHost.current().checkedAt ?? 'never',

    async extendedHealth() {
      const agents = agentsLifecycle(deps.agents);
      const [counts, persistence, knowledge, repairs, incidents, accounting] = await Promise.all([
        store.countRuns(true),
        readPersistence(),
        readPort(KNOWLEDGE_KEYS, 'knowledge index', ports.knowledge && (() => ports.knowledge!.stats())),
        readRepairs(),
        ports.incidents.rollup(),
        readAccounting(),
      ]);
      const health = composeExtendedHealth({
        now: deps.clock.now(),
        config: deps.config,
        counts,
        agents,
        persistence,
        knowledge,
        repairs,
        codeHost: deps.codeHost.current(),
        incidents,
      });
      return { ...health, accounting };
    },

    async dashboard() {
      const [counts, retrying, accounting, repairs, incidents, state, persistence] = await Promise.all([
        store.countRuns(true),
        store.listRuns({ status: 'retrying', includeInternal: true, limit: RETRY_SCAN_LIMIT, order: 'oldest' }),
        readAccounting(),
        readRepairs(),
        ports.incidents.rollup(),
        store.getState(),
        readPersistence(),
      ]);
      return composeDashboard({
        now: deps.clock.now(),
        fastStart: deps.config.fastStart,
        serviceStartedAt: deps.serviceStartedAt,
        counts,
        retrying: retrying.items,
        repairs,
        accounting,
        incidents,
        taskHistory: state.taskHistory,
        persistence,
      });
    },

    async runtimeFacts() {
      const [heartbeat, coordination] = await Promise.all([
        store.listRuns({ type: heartbeatType.type, includeInternal: true, limit: 1, order: 'newest' }),
        deps.coordination.status(),
      ]);
      return composeRuntimeFacts({
        now: deps.clock.now(),
        config: deps.config,
        storeKind: store.kind,
        coordinationStore: coordination.store,
        lastHeartbeat: heartbeat.items[0] ?? null,
        agents: deps.agents.registry.list(),
        probe: (unit) => deps.agents.probe.current(unit),
      });
    },

    /** Run activity of the last hour or day: one bounded read of the newest public runs. */
    async runStats(window: RunStatsWindow) {
      const [recent, counts] = await Promise.all([
        store.listRuns({ includeInternal: false, limit: RUN_STATS_SCAN_LIMIT, order: 'newest' }),
        store.countRuns(true),
      ]);
      return composeRunStats({ now: deps.clock.now(), window, runs: recent.items, scanLimit: RUN_STATS_SCAN_LIMIT, counts });
    },
  };
}

export type AggregateReaders = ReturnType<typeof createAggregateReaders>;
