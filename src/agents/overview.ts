import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StateStore } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';
import type { ServiceHeartbeat } from '../common/resident-service.js';
import { assessReadiness, capabilityProfile, RUNTIME_SIGNAL_NAMES, type Readiness } from './capability.js';
import type { AgentRegistry, RegisteredAgent } from './registry.js';
import { buildRelationshipHistory, RELATIONSHIP_RUN_WINDOW, type RelationshipHistory } from './relationship-history.js';
import { serviceGapSignals, type HostServiceStatus, type ServiceGapSignal, type ServiceUnitReading } from './service-probe.js';
import { assessAgentGovernance, laneSkills, type SkillRegistry } from './skills.js';
import { buildTopology, type Topology } from './topology.js';

/** Successful runs per lane whose result keys count as evidence (signals, capabilities). */
export const RECENT_SUCCESS_PER_LANE = 5;

export interface AgentsOverviewDeps {
  registry: AgentRegistry;
  store: StateStore;
  /** The cached host probe; never probes on the request path. */
  probe: { current(unit: string): ServiceUnitReading };
  skills: SkillRegistry;
  serviceHeartbeat: (agent: RegisteredAgent) => Promise<ServiceHeartbeat | null>;
  now: () => Date;
  /** Whether a resident service entrypoint exists in the repository; defaults to agents/<id>/service.{ts,js}. */
  serviceEntrypointExists?: (agent: RegisteredAgent) => boolean;
  /** The model an agent's tier resolves to now (src/models/lane-policy.ts); absent or null: none. */
  modelOf?: (agent: RegisteredAgent) => string | null;
}

export interface EvidenceItem {
  kind: 'manifest' | 'entrypoint' | 'service-entrypoint' | 'successful-run' | 'result-field' | 'host-service' | 'heartbeat';
  detail: string;
  runId?: string;
}

export interface EvidenceProfile {
  profile: 'lifecycle' | 'runtime' | 'tool-gate' | 'governance-depth';
  status: 'present' | 'partial' | 'missing';
  detail: string;
  data?: Record<string, unknown>;
}

export interface AgentOverviewEntry {
  id: string;
  name: string;
  orchestratorTask: string;
  lanes: string[];
  spawnedWorkerCapable: boolean;
  spawnedWorkerReason: string | null;
  serviceAvailable: boolean;
  serviceExpected: boolean;
  lifecycleMode: RegisteredAgent['lifecycleMode'];
  hostServiceStatus: HostServiceStatus | 'not-applicable';
  hostServiceReason: string | null;
  serviceUnitName: string | null;
  serviceInstalled: boolean | null;
  serviceRunning: boolean | null;
  serviceUnitState: string | null;
  serviceUnitSubState: string | null;
  serviceUnitFileState: string | null;
  serviceHeartbeat: { status: string; heartbeatAt: string; pid: number; stale: boolean } | null;
  modelTier: RegisteredAgent['model']['tier'];
  /** The model the tier resolves to with the configured provider; null for local agents or without a provider. */
  model: string | null;
  allowedSkills: string[];
  memory: { totalRuns: number; lastRunAt: string | null; successfulRuns: number; failedRuns: number };
  /** Legacy alias of serviceAvailable; not stronger truth. */
  serviceImplementation: boolean;
  /** Legacy alias of serviceRunning; not stronger truth. */
  serviceOperational: boolean | null;
  capability: {
    role: string;
    spine: string;
    currentReadiness: Readiness;
    targetCapabilities: string[];
    presentCapabilities: string[];
    missingCapabilities: string[];
    evidence: EvidenceItem[];
    evidenceProfiles: EvidenceProfile[];
    runtimeEvidence: {
      latestSuccessfulRunId: string | null;
      latestSuccessfulTaskId: string | null;
      latestHandledAt: string | null;
      highlightKeys: string[];
      signals: string[];
    };
    ultraGapSummary: string;
  };
}

export interface AgentsOverview {
  generatedAt: string;
  agents: AgentOverviewEntry[];
  topology: Topology;
  relationshipHistory: RelationshipHistory;
  /** Service-expected agents whose unit the host shows missing, stopped or failed (incident pressure). */
  serviceGaps: ServiceGapSignal[];
}

const defaultServiceEntrypointExists = (agent: RegisteredAgent): boolean =>
  existsSync(join(agent.directory, 'service.ts')) || existsSync(join(agent.directory, 'service.js'));

const resultKeys = (run: RunRecord): string[] =>
  run.result !== null && typeof run.result === 'object' && !Array.isArray(run.result) ? Object.keys(run.result as object) : [];

const handledAt = (run: RunRecord): string => run.finishedAt ?? run.updatedAt;

/** A heartbeat older than three intervals means the service stopped beating without saying so. */
function heartbeatView(hb: ServiceHeartbeat | null, now: Date): AgentOverviewEntry['serviceHeartbeat'] {
  if (!hb) return null;
  const age = now.getTime() - Date.parse(hb.heartbeatAt);
  return { status: hb.status, heartbeatAt: hb.heartbeatAt, pid: hb.pid, stale: hb.status !== 'running' || !(age <= 3 * hb.intervalMs) };
}

/** What can run the agent here: its worker entrypoint, its service entrypoint and the host's cached unit reading. */
function lifecycleOf(agent: RegisteredAgent, deps: Pick<AgentsOverviewDeps, 'probe' | 'serviceEntrypointExists'>) {
  return {
    spawnedWorkerCapable: agent.entrypointPath !== null,
    serviceAvailable: (deps.serviceEntrypointExists ?? defaultServiceEntrypointExists)(agent),
    reading: agent.serviceExpected && agent.serviceUnitName ? deps.probe.current(agent.serviceUnitName) : null,
  };
}

/** The lifecycle fields of an overview entry, which need no run. */
export type AgentLifecycle = Pick<
  AgentOverviewEntry,
  'id' | 'lanes' | 'spawnedWorkerCapable' | 'serviceAvailable' | 'serviceExpected' | 'serviceUnitName' | 'serviceInstalled' | 'serviceRunning'
>;

/**
 * The overview's lifecycle truth for every agent, without reading any run: what aggregates
 * (extended health) count, computed exactly as the overview entries compute it.
 */
export function agentsLifecycle(deps: Pick<AgentsOverviewDeps, 'registry' | 'probe' | 'serviceEntrypointExists'>): {
  agents: AgentLifecycle[];
  serviceGaps: ServiceGapSignal[];
} {
  const agents = deps.registry.list();
  return {
    agents: agents.map((agent) => {
      const { spawnedWorkerCapable, serviceAvailable, reading } = lifecycleOf(agent, deps);
      return {
        id: agent.id,
        lanes: [...agent.lanes],
        spawnedWorkerCapable,
        serviceAvailable,
        serviceExpected: agent.serviceExpected,
        serviceUnitName: agent.serviceUnitName,
        serviceInstalled: reading?.serviceInstalled ?? null,
        serviceRunning: reading?.serviceRunning ?? null,
      };
    }),
    serviceGaps: serviceGapSignals(agents, (unit) => deps.probe.current(unit)),
  };
}

async function laneRuns(store: StateStore, lane: string) {
  const [latest, successes] = await Promise.all([
    store.listRuns({ type: lane, limit: 1, includeInternal: true }),
    store.listRuns({ type: lane, status: 'success', limit: RECENT_SUCCESS_PER_LANE, includeInternal: true }),
  ]);
  return { lane, latest: latest.items[0] ?? null, successes: successes.items };
}

async function overviewEntry(
  agent: RegisteredAgent,
  deps: AgentsOverviewDeps,
  counts: Awaited<ReturnType<StateStore['countRuns']>>,
  now: Date,
): Promise<AgentOverviewEntry> {
  const lanes = await Promise.all(agent.lanes.map((lane) => laneRuns(deps.store, lane)));
  let totalRuns = 0;
  let successfulRuns = 0;
  let failedRuns = 0;
  for (const lane of agent.lanes) {
    const byStatus = counts.byType[lane];
    if (!byStatus) continue;
    totalRuns += Object.values(byStatus).reduce((a, b) => a + b, 0);
    successfulRuns += byStatus.success ?? 0;
    failedRuns += byStatus.failed ?? 0;
  }
  const lastRunAt = lanes.map((l) => l.latest?.createdAt ?? null).filter((x): x is string => x !== null).sort().at(-1) ?? null;
  const successes = lanes.flatMap((l) => l.successes).sort((a, b) => (handledAt(a) < handledAt(b) ? 1 : -1));
  const latestSuccess = successes[0] ?? null;
  const successKeys = new Set(successes.flatMap(resultKeys));
  const lanesWithSuccess = new Set(lanes.filter((l) => l.successes.length > 0).map((l) => l.lane));

  const { spawnedWorkerCapable: spawnable, serviceAvailable, reading } = lifecycleOf(agent, deps);
  const profile = capabilityProfile(agent);
  const assessment = assessReadiness(profile, { runnable: spawnable || serviceAvailable, lanes: agent.lanes, lanesWithSuccess, successKeys });

  const heartbeat = agent.serviceExpected ? heartbeatView(await deps.serviceHeartbeat(agent), now) : null;

  const evidence: EvidenceItem[] = [{ kind: 'manifest', detail: `${agent.id}/agent.config.json declares ${agent.lanes.join(', ')}` }];
  if (spawnable) evidence.push({ kind: 'entrypoint', detail: `worker entrypoint ${agent.entrypoint} resolves` });
  if (serviceAvailable) evidence.push({ kind: 'service-entrypoint', detail: `agents/${agent.id}/service entrypoint present` });
  for (const l of lanes) {
    const run = l.successes[0];
    if (run) evidence.push({ kind: 'successful-run', detail: `${l.lane} succeeded at ${handledAt(run)}`, runId: run.runId });
  }
  for (const t of profile.targets) {
    const key = t.resultKeys.find((k) => successKeys.has(k));
    if (key) evidence.push({ kind: 'result-field', detail: `${t.name}: result.${key}` });
  }
  if (reading && reading.serviceInstalled !== null) {
    evidence.push({ kind: 'host-service', detail: `${reading.unit} ${reading.serviceUnitState}/${reading.serviceUnitSubState}` });
  }
  if (heartbeat) evidence.push({ kind: 'heartbeat', detail: `heartbeat ${heartbeat.status} at ${heartbeat.heartbeatAt}${heartbeat.stale ? ' (stale)' : ''}` });

  const evidenceProfiles: EvidenceProfile[] = [
    {
      profile: 'lifecycle',
      status: spawnable || serviceAvailable ? (agent.serviceExpected && reading?.serviceRunning !== true ? 'partial' : 'present') : 'missing',
      detail: agent.serviceExpected
        ? `service-expected; service entrypoint ${serviceAvailable ? 'present' : 'absent'}; host ${reading?.hostServiceStatus ?? 'unknown'}`
        : spawnable
          ? 'worker-first; entrypoint spawnable'
          : `worker-first; ${agent.entrypointMissingReason ?? 'no entrypoint'}`,
    },
    {
      profile: 'runtime',
      status: lanesWithSuccess.size === agent.lanes.length ? 'present' : lanesWithSuccess.size > 0 ? 'partial' : 'missing',
      detail: `${lanesWithSuccess.size}/${agent.lanes.length} lanes with a successful run; ${totalRuns} runs in total`,
    },
  ];
  const gated = agent.lanes.filter((l) => laneSkills(l) !== undefined);
  if (gated.length > 0) {
    const gatedRun = successes.find((r) => r.toolGate);
    evidenceProfiles.push({
      profile: 'tool-gate',
      status: gatedRun ? 'present' : 'missing',
      detail: gatedRun ? `latest gated run ${gatedRun.runId}: preflight ${gatedRun.toolGate!.preflight.decision}` : `tool-gated lanes ${gated.join(', ')} have no recorded gate evidence yet`,
    });
  }
  if (agent.id === 'skill-audit-agent') {
    const governance = deps.registry.list().map((a) => {
      const byType = a.lanes.map((l) => counts.byType[l]).filter((x) => x !== undefined);
      const runCount = byType.reduce((sum, s) => sum + Object.values(s).reduce((x, y) => x + y, 0), 0);
      return assessAgentGovernance({ id: a.id, lanes: a.lanes, allowedSkills: a.allowedSkills, runCount, lastRunAt: null }, deps.skills);
    });
    const levels: Record<string, number> = {};
    for (const g of governance) levels[g.governanceDepth.level] = (levels[g.governanceDepth.level] ?? 0) + 1;
    const shallow = governance.filter((g) => g.governanceDepth.level === 'shallow').map((g) => g.agentId);
    evidenceProfiles.push({
      profile: 'governance-depth',
      status: shallow.length === 0 ? 'present' : 'partial',
      detail: `${governance.length} agents audited; shallow: ${shallow.length === 0 ? 'none' : shallow.join(', ')}`,
      data: { levels, averageScore: Math.round(governance.reduce((s, g) => s + g.governanceDepth.score, 0) / Math.max(1, governance.length)) },
    });
  }

  const highlightKeys = latestSuccess ? resultKeys(latestSuccess) : [];
  const signals = RUNTIME_SIGNAL_NAMES.filter((s) => successKeys.has(s));
  const hostServiceStatus: AgentOverviewEntry['hostServiceStatus'] = reading ? reading.hostServiceStatus : 'not-applicable';

  return {
    id: agent.id,
    name: agent.name,
    orchestratorTask: agent.lanes[0] ?? '',
    lanes: [...agent.lanes],
    spawnedWorkerCapable: spawnable,
    spawnedWorkerReason: agent.entrypointMissingReason,
    serviceAvailable,
    serviceExpected: agent.serviceExpected,
    lifecycleMode: agent.lifecycleMode,
    hostServiceStatus,
    hostServiceReason: reading?.reason ?? null,
    serviceUnitName: agent.serviceUnitName,
    serviceInstalled: reading?.serviceInstalled ?? null,
    serviceRunning: reading?.serviceRunning ?? null,
    serviceUnitState: reading?.serviceUnitState ?? null,
    serviceUnitSubState: reading?.serviceUnitSubState ?? null,
    serviceUnitFileState: reading?.serviceUnitFileState ?? null,
    serviceHeartbeat: heartbeat,
    modelTier: agent.model.tier,
    model: deps.modelOf?.(agent) ?? null,
    allowedSkills: [...agent.allowedSkills],
    memory: { totalRuns, lastRunAt, successfulRuns, failedRuns },
    serviceImplementation: serviceAvailable,
    serviceOperational: reading?.serviceRunning ?? null,
    capability: {
      role: profile.role,
      spine: profile.spine,
      currentReadiness: assessment.currentReadiness,
      targetCapabilities: profile.targets.map((t) => t.name),
      presentCapabilities: assessment.presentCapabilities,
      missingCapabilities: assessment.missingCapabilities,
      evidence,
      evidenceProfiles,
      runtimeEvidence: {
        latestSuccessfulRunId: latestSuccess?.runId ?? null,
        latestSuccessfulTaskId: latestSuccess?.taskId ?? null,
        latestHandledAt: latestSuccess ? handledAt(latestSuccess) : null,
        highlightKeys,
        signals,
      },
      ultraGapSummary: assessment.ultraGapSummary,
    },
  };
}

/**
 * The agents overview: one entry per registered agent (from bounded per-lane queries, never a
 * scan of every run), the declared topology, and the relationship history of the newest runs.
 */
export async function buildAgentsOverview(deps: AgentsOverviewDeps): Promise<AgentsOverview> {
  const now = deps.now();
  const agents = deps.registry.list();
  const [counts, window] = await Promise.all([
    deps.store.countRuns(true),
    deps.store.listRuns({ includeInternal: true, limit: RELATIONSHIP_RUN_WINDOW, order: 'newest' }),
  ]);
  const entries = await Promise.all(agents.map((agent) => overviewEntry(agent, deps, counts, now)));
  return {
    generatedAt: now.toISOString(),
    agents: entries,
    topology: buildTopology(agents),
    relationshipHistory: buildRelationshipHistory(window.items, agents, now),
    serviceGaps: serviceGapSignals(agents, (unit) => deps.probe.current(unit)),
  };
}
