import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildAgentsOverview } from '../../src/agents/overview.js';
import type { RegisteredAgent } from '../../src/agents/registry.js';
import { createServiceProbe } from '../../src/agents/service-probe.js';
import { loadSkillRegistry } from '../../src/agents/skills.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import type { ServiceHeartbeat } from '../../src/common/resident-service.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

const agent = (id: string, lanes: string[], overrides: Partial<RegisteredAgent> = {}): RegisteredAgent =>
  registeredAgent(id, lanes, { allowedSkills: ['workspace-read'], ...overrides });

const AGENTS: RegisteredAgent[] = [
  agent('doc-specialist', ['drift-repair'], {
    lifecycleMode: 'service-expected',
    serviceExpected: true,
    serviceUnitName: 'orchestrator-doc-specialist.service',
    serviceStatePath: 'logs/doc-specialist-service.json',
    entrypoint: null,
    entrypointPath: null,
    entrypointMissingReason: 'no worker entrypoint declared in agent.config.json',
    allowedSkills: ['docs-read', 'knowledge-pack-write'],
    model: { tier: 'standard', provider: null, name: null },
  }),
  agent('community-helper', ['community-response'], {
    lifecycleMode: 'service-expected',
    serviceExpected: true,
    serviceUnitName: 'orchestrator-community-helper.service',
    serviceStatePath: 'logs/community-helper-service.json',
    entrypoint: null,
    entrypointPath: null,
  }),
  agent('security-agent', ['security-audit']),
  agent('system-monitor-agent', ['system-monitor', 'incident-triage'], { allowedSkills: ['state-read', 'queue-read'] }),
  agent('qa-verification-agent', ['qa-verification']),
  agent('build-refactor-agent', ['build-refactor']),
  agent('summarization-agent', ['summarize-content'], { entrypoint: null, entrypointPath: null, entrypointMissingReason: 'none' }),
  agent('skill-audit-agent', ['skill-audit'], { allowedSkills: ['agent-registry-read', 'skill-registry-read'] }),
];

const registry = agentRegistry(AGENTS);

const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();

function finished(type: string, m: number, status: 'success' | 'failed', result: unknown, extra: Partial<RunRecord> = {}): RunRecord {
  const at = minutesAgo(m);
  return makeRun({ type, status, queueState: null, createdAt: at, updatedAt: at, startedAt: at, finishedAt: at, result, ...extra });
}

const contract = { operatorSummary: 'ok', specialistContract: { role: 'x' }, recommendedNextActions: [] };

describe('buildAgentsOverview', () => {
  const stores: FileStateStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  async function overview(runs: RunRecord[], probeOutput: Record<string, string | Error>, heartbeats: Record<string, ServiceHeartbeat> = {}) {
    const dir = tempDir('overview-');
    const store = new FileStateStore(join(dir, 'data', 'state.json'));
    await store.open();
    stores.push(store);
    for (const run of runs) await store.mutateRun(run.runId, insertIfAbsent(run));
    const probe = createServiceProbe({
      runShow: async (u) => {
        const out = probeOutput[u];
        if (out === undefined || out instanceof Error) throw out ?? Object.assign(new Error('spawn systemctl ENOENT'), { code: 'ENOENT' });
        return out;
      },
      ttlMs: 60_000,
      now: () => NOW,
    });
    await probe.refresh(['orchestrator-doc-specialist.service', 'orchestrator-community-helper.service']);
    return buildAgentsOverview({
      registry,
      store,
      probe,
      skills: loadSkillRegistry(),
      serviceHeartbeat: async (a) => heartbeats[a.id] ?? null,
      now: () => NOW,
      serviceEntrypointExists: (a) => a.serviceExpected,
    });
  }

  const RUNS = () => [
    finished('security-audit', 300, 'failed', null),
    finished('security-audit', 120, 'success', { ...contract, findings: [], exploitabilityRanking: [], scopeContract: {} }, { runId: 'sec-1', taskId: 'sec-task-1' }),
    finished('security-audit', 10, 'success', { ...contract, findings: [{ rule: 'r' }], exploitabilityRanking: [], trustPosture: 'x' }, { runId: 'sec-2', taskId: 'sec-task-2' }),
    finished('qa-verification', 30, 'success', { ...contract, plan: [], passed: 3, failed: 0, skipped: 0 }),
    finished('build-refactor', 40, 'failed', null),
    finished('system-monitor', 50, 'success', { ...contract, posture: 'clear', host: {} }),
    finished('drift-repair', 20, 'success', { filesAudited: 3, driftDetected: true, knowledgePackRegenerated: true }),
  ];

  it('gives every spec field, with memory from lane counts and runtime evidence from real result keys', async () => {
    const result = await overview(RUNS(), {
      'orchestrator-doc-specialist.service': 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\n',
      'orchestrator-community-helper.service': 'LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\n',
    });
    expect(result.generatedAt).toBe(NOW.toISOString());
    const sec = result.agents.find((a) => a.id === 'security-agent')!;
    expect(sec).toMatchObject({
      orchestratorTask: 'security-audit',
      spawnedWorkerCapable: true,
      serviceAvailable: false,
      serviceExpected: false,
      lifecycleMode: 'worker-first',
      hostServiceStatus: 'not-applicable',
      serviceUnitName: null,
      serviceInstalled: null,
      serviceRunning: null,
      serviceUnitState: null,
      serviceUnitSubState: null,
      serviceUnitFileState: null,
      modelTier: 'local',
      allowedSkills: ['workspace-read'],
      memory: { totalRuns: 3, lastRunAt: minutesAgo(10), successfulRuns: 2, failedRuns: 1 },
      serviceImplementation: false,
      serviceOperational: null,
    });
    expect(sec.capability.runtimeEvidence).toEqual({
      latestSuccessfulRunId: 'sec-2',
      latestSuccessfulTaskId: 'sec-task-2',
      latestHandledAt: minutesAgo(10),
      highlightKeys: ['operatorSummary', 'specialistContract', 'recommendedNextActions', 'findings', 'exploitabilityRanking', 'trustPosture'],
      // Only names a result actually carried: scopeContract came from the older success.
      signals: ['exploitabilityRanking', 'scopeContract', 'trustPosture'],
    });
    expect(sec.capability.currentReadiness).toBe('advanced');
    expect(sec.capability.missingCapabilities).toEqual([]);
    expect(sec.capability.ultraGapSummary).toMatch(/^none/);
  });

  it('computes readiness from evidence: declared, foundation, operational', async () => {
    const result = await overview(RUNS(), {});
    const by = (id: string) => result.agents.find((a) => a.id === id)!.capability;
    expect(by('summarization-agent').currentReadiness).toBe('declared');
    expect(by('build-refactor-agent').currentReadiness).toBe('foundation');
    expect(by('build-refactor-agent').ultraGapSummary).toContain('no successful run of build-refactor');
    // system-monitor succeeded but incident-triage never did.
    expect(by('system-monitor-agent').currentReadiness).toBe('operational');
    expect(by('system-monitor-agent').ultraGapSummary).toContain('incident-triage');
    expect(by('qa-verification-agent').presentCapabilities).toEqual(['operator-summary', 'specialist-contract', 'test-plan', 'execution-counts']);
    expect(by('skill-audit-agent').evidenceProfiles.map((p) => p.profile)).toContain('governance-depth');
    expect(by('system-monitor-agent').runtimeEvidence.signals).toEqual([]);
  });

  it('reports host truth for service-expected agents, and null only when the probe is unavailable', async () => {
    const hb: ServiceHeartbeat = { agentId: 'doc-specialist', pid: 42, startedAt: minutesAgo(60), heartbeatAt: minutesAgo(0.2), status: 'running', intervalMs: 30_000 };
    const seen = await overview(RUNS(), {
      'orchestrator-doc-specialist.service': 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\n',
      'orchestrator-community-helper.service': 'LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\n',
    }, { 'doc-specialist': hb });
    const doc = seen.agents.find((a) => a.id === 'doc-specialist')!;
    expect(doc).toMatchObject({ hostServiceStatus: 'running', serviceInstalled: true, serviceRunning: true, serviceOperational: true, serviceAvailable: true, spawnedWorkerCapable: false });
    expect(doc.serviceHeartbeat).toMatchObject({ status: 'running', stale: false });
    expect(doc.capability.currentReadiness).toBe('advanced');
    const helper = seen.agents.find((a) => a.id === 'community-helper')!;
    expect(helper).toMatchObject({ hostServiceStatus: 'not-installed', serviceInstalled: false, serviceRunning: false, serviceUnitFileState: null });
    // The missing unit is a service gap (incident pressure); the running one is not.
    expect(seen.serviceGaps).toEqual([
      expect.objectContaining({ agentId: 'community-helper', unit: 'orchestrator-community-helper.service', reason: 'unit-missing' }),
    ]);

    const blind = await overview(RUNS(), {});
    expect(blind.agents.find((a) => a.id === 'doc-specialist')).toMatchObject({
      hostServiceStatus: 'probe-unavailable',
      serviceInstalled: null,
      serviceRunning: null,
      hostServiceReason: expect.stringContaining('ENOENT'),
    });
    // An unavailable probe knows nothing, so it raises no gap.
    expect(blind.serviceGaps).toEqual([]);
  });

  it('builds the topology and the relationship history', async () => {
    const gated = finished('security-audit', 5, 'success', { ...contract }, {
      toolGate: {
        preflight: { decision: 'allowed', taskType: 'security-audit', agentId: 'security-agent', requiredSkills: ['workspace-read', 'secret-scan'], grantedSkills: [], missingSkills: [], nonExecutableSkills: [], unregisteredSkills: [], reason: null, checkedAt: minutesAgo(5) },
        execute: { skillsExercised: ['workspace-read', 'secret-scan'], ok: true, durationMs: 5, failureReason: null, recordedAt: minutesAgo(5) },
      },
    });
    const result = await overview([...RUNS(), gated], {});
    const t = result.topology;
    // The declared table names agents this registry lacks: the graph says so instead of hiding it.
    expect(t.status).toBe('partial');
    expect(t.problems).toContain('relationship coordinates-agent names unregistered agent integration-agent');
    expect(t.edges.filter((e) => e.relationship === 'verifies-agent')).toEqual([{ from: 'agent:qa-verification-agent', to: 'agent:build-refactor-agent', relationship: 'verifies-agent' }]);
    expect(t.edges.some((e) => e.relationship === 'feeds-agent' && e.to === 'agent:community-helper')).toBe(true);
    expect(t.counts.relationshipEdges).toBe(t.edges.filter((e) => !['dispatches-task', 'served-by', 'uses-skill'].includes(e.relationship)).length);
    expect(t.counts.totalEdges).toBe(t.edges.length);
    expect(t.hotspots.length).toBeGreaterThan(0);

    const h = result.relationshipHistory;
    // 8 worker runs = 8 delegations; 2 tool-use; 1 qa verification; 1 system-monitor run × 7 monitored agents.
    expect(h.byRelationship).toEqual({ delegation: 8, 'tool-use': 2, verification: 1, monitoring: 7 });
    expect(h.totalObservations).toBe(18);
    expect(h.lastObservedAt).toBe(minutesAgo(5));
    expect(h.windows.short.totalObservations).toBe(16);
    expect(h.windows.long.totalObservations).toBe(18);
    expect(h.recent).toHaveLength(18);
    expect(h.recent[0]).toMatchObject({ at: minutesAgo(5) });
    expect(h.timeline.reduce((s, b) => s + b.total, 0)).toBe(18);
    expect(h.byStatus).toEqual({ success: 16, failed: 2 });
    expect(h.graph.totalNodes).toBeGreaterThan(0);
  });
});
