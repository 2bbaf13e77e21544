import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RegisteredAgent } from '../../src/agents/registry.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { createControlPlaneSnapshot, SNAPSHOT_RUN_WINDOW } from '../../src/tasks/control-plane-snapshot.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir, testConfig } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const STARTED = new Date('2026-03-01T11:00:00.000Z');

const agent = (id: string, lanes: string[], overrides: Partial<RegisteredAgent> = {}): RegisteredAgent =>
  registeredAgent(id, lanes, { allowedSkills: ['state-read'], ...overrides });

/** Minute `i` after 10:00 on the snapshot's day: later seeds are newer runs. */
function minute(i: number): string {
  return new Date(Date.parse('2026-03-01T10:00:00.000Z') + i * 60_000).toISOString();
}

function finished(type: string, i: number, status: 'success' | 'failed', extra: Partial<RunRecord> = {}): RunRecord {
  return makeRun({
    type,
    status,
    queueState: null,
    createdAt: minute(i),
    updatedAt: minute(i),
    startedAt: minute(i),
    finishedAt: new Date(Date.parse(minute(i)) + 1500).toISOString(),
    ...extra,
  });
}

describe('createControlPlaneSnapshot', () => {
  const stores: FileStateStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  async function seededStore(runs: RunRecord[]): Promise<{ store: FileStateStore; dir: string }> {
    const dir = tempDir('snapshot-');
    const store = new FileStateStore(join(dir, 'data', 'state.json'));
    await store.open();
    stores.push(store);
    // Sequential inserts so admission order (seq) follows the seeds' order.
    for (const run of runs) await store.mutateRun(run.runId, insertIfAbsent(run));
    return { store, dir };
  }

  function build(store: FileStateStore, dir: string, agents: RegisteredAgent[]) {
    const config = testConfig({ STATE_FILE: join(dir, 'data', 'state.json'), ORCHESTRATOR_CONCURRENCY: '3' }, dir);
    return createControlPlaneSnapshot({
      store,
      clock: { now: () => NOW },
      config,
      agents: agentRegistry(agents),
      serviceStartedAt: STARTED,
      stateStoreKind: 'file',
      coordinationKind: 'memory',
    });
  }

  it('counts the queue, approvals, per-type failure rates and agents from the store, without payload or result values', async () => {
    const runs: RunRecord[] = [];
    for (let i = 0; i < 8; i += 1) {
      runs.push(
        finished('security-audit', i, i < 6 ? 'failed' : 'success', {
          payload: { scope: 'repo', apiToken: 'payload-secret-value' },
          ...(i < 6
            ? { error: 'scope not found', failureReason: 'worker-logical-failure' }
            : { result: { success: true, findings: [{ evidence: 'result-secret-value' }], posture: 'clear' } }),
        }),
      );
    }
    runs.push(makeRun({ type: 'system-monitor', status: 'running', queueState: null, createdAt: minute(20), startedAt: minute(20) }));
    runs.push(makeRun({ type: 'summarize-content', status: 'retrying', queueState: null, createdAt: minute(21), error: 'worker crashed' }));
    runs.push(makeRun({ type: 'summarize-content', createdAt: minute(22) }));
    runs.push(
      makeRun({
        type: 'build-refactor',
        queueState: 'held',
        createdAt: minute(23),
        approval: { ...makeRun().approval, required: true, status: 'pending', requestedAt: minute(23) },
      }),
    );
    runs.push(
      makeRun({
        type: 'agent-deploy',
        queueState: 'held',
        createdAt: minute(24),
        approval: { ...makeRun().approval, required: true, status: 'pending', requestedAt: minute(24) },
      }),
    );
    const { store, dir } = await seededStore(runs);
    await store.append(
      'milestones',
      { milestoneId: 'startup:1', kind: 'startup', status: 'completed', at: minute(0), runId: 'x', summary: 'service started' },
      100,
    );
    const agents = [
      agent('security-agent', ['security-audit']),
      agent('system-monitor-agent', ['system-monitor', 'incident-triage'], {
        lifecycleMode: 'service-expected',
        serviceExpected: true,
        serviceUnitName: 'system-monitor.service',
        entrypointPath: null,
        entrypointMissingReason: 'no entrypoint',
      }),
    ];

    const snapshot = await build(store, dir, agents)();

    expect(snapshot.generatedAt).toBe(NOW.toISOString());
    expect(snapshot.service).toMatchObject({
      startedAt: STARTED.toISOString(),
      uptimeSeconds: 3600,
      pid: process.pid,
      stateStore: 'file',
      coordination: 'memory',
      concurrency: 3,
      stateDirectory: join(dir, 'data'),
    });
    expect(snapshot.queue).toEqual({ queued: 1, processing: 1, held: 2, retrying: 1 });
    expect(snapshot.approvals.pendingCount).toBe(2);
    expect(snapshot.approvals.oldestRequestedAt).toBe(minute(23));
    expect(snapshot.approvals.items.map((a) => a.type)).toEqual(['agent-deploy', 'build-refactor']);

    // Queued and held runs are not in the window: 8 audits + 1 running + 1 retrying.
    expect(snapshot.runs.window).toBe(10);
    const audit = snapshot.runs.byType.find((t) => t.type === 'security-audit');
    expect(audit).toEqual({ type: 'security-audit', total: 8, success: 2, failed: 6, running: 0, failureRate: 0.75 });
    expect(snapshot.runs.byType.find((t) => t.type === 'summarize-content')).toMatchObject({ failed: 1, failureRate: 1 });
    expect(snapshot.runs.byType.find((t) => t.type === 'system-monitor')).toMatchObject({ running: 1, failureRate: 0 });

    const newest = snapshot.runs.recent[0]!;
    expect(newest).toMatchObject({ type: 'summarize-content', status: 'retrying', error: 'worker crashed' });
    const succeeded = snapshot.runs.recent.find((r) => r.type === 'security-audit' && r.status === 'success')!;
    expect(succeeded.resultKeys).toEqual(['success', 'findings', 'posture']);
    expect(succeeded.durationMs).toBe(1500);
    const serialized = JSON.stringify(snapshot);
    expect(serialized).not.toContain('payload-secret-value');
    expect(serialized).not.toContain('result-secret-value');

    expect(snapshot.agents).toEqual([
      expect.objectContaining({ id: 'security-agent', runCount: 8, lastRunAt: minute(7), entrypointAvailable: true }),
      expect.objectContaining({
        id: 'system-monitor-agent',
        runCount: 1,
        lastRunAt: minute(20),
        serviceExpected: true,
        serviceUnitName: 'system-monitor.service',
        entrypointAvailable: false,
      }),
    ]);
    expect(snapshot.incidents).toEqual([]);
    expect(snapshot.milestones).toEqual([
      { milestoneId: 'startup:1', kind: 'startup', status: 'completed', at: minute(0), summary: 'service started' },
    ]);
  });

  it('leaves held runs settled by their approval out of the window and the failure rates', async () => {
    const decided = (status: 'approved' | 'rejected') => ({ ...makeRun().approval, required: true, status });
    const { store, dir } = await seededStore([
      finished('agent-deploy', 1, 'failed', { startedAt: null, failureReason: 'approval_rejected', approval: decided('rejected') }),
      finished('agent-deploy', 2, 'failed', { startedAt: null, failureReason: 'approval_rejected', approval: decided('rejected') }),
      finished('agent-deploy', 3, 'success', { startedAt: null, approval: decided('approved') }),
      finished('agent-deploy', 4, 'success'),
      finished('agent-deploy', 5, 'failed', { failureReason: 'worker-logical-failure', error: 'deploy failed' }),
    ]);
    const snapshot = await build(store, dir, [])();
    expect(snapshot.runs.window).toBe(2);
    expect(snapshot.runs.byType).toEqual([{ type: 'agent-deploy', total: 2, success: 1, failed: 1, running: 0, failureRate: 0.5 }]);
  });

  it('bounds the window to the newest runs and the recent list to 50', async () => {
    const runs: RunRecord[] = [];
    // 100 old failures, then enough newer successes to push them out of the window.
    for (let i = 0; i < 100; i += 1) runs.push(finished('data-extraction', i, 'failed', { error: 'bad input' }));
    for (let i = 0; i < SNAPSHOT_RUN_WINDOW; i += 1) runs.push(finished('data-extraction', 100 + i, 'success'));
    const { store, dir } = await seededStore(runs);

    const snapshot = await build(store, dir, [])();

    expect(snapshot.runs.window).toBe(SNAPSHOT_RUN_WINDOW);
    expect(snapshot.runs.byType).toEqual([
      { type: 'data-extraction', total: SNAPSHOT_RUN_WINDOW, success: SNAPSHOT_RUN_WINDOW, failed: 0, running: 0, failureRate: 0 },
    ]);
    expect(snapshot.runs.recent).toHaveLength(50);
    expect(snapshot.runs.recent[0]!.createdAt).toBe(minute(100 + SNAPSHOT_RUN_WINDOW - 1));
    expect(snapshot.approvals).toEqual({ pendingCount: 0, oldestRequestedAt: null, items: [] });
  });

  it('names no state folder for a remote document store and the SQLite folder for sql: targets', async () => {
    const { store, dir } = await seededStore([]);
    const sqlite = createControlPlaneSnapshot({
      store,
      clock: { now: () => NOW },
      config: { ...testConfig({}, dir), stateTarget: `sql:${join(dir, 'db', 'state.sqlite')}` },
      agents: agentRegistry([]),
      serviceStartedAt: STARTED,
      stateStoreKind: 'sqlite',
      coordinationKind: 'redis',
    });
    expect((await sqlite()).service).toMatchObject({ stateDirectory: join(dir, 'db'), stateStore: 'sqlite', coordination: 'redis' });
    const docdb = createControlPlaneSnapshot({
      store,
      clock: { now: () => NOW },
      config: { ...testConfig({}, dir), stateTarget: 'docdb:orchestrator' },
      agents: agentRegistry([]),
      serviceStartedAt: STARTED,
      stateStoreKind: 'postgres',
      coordinationKind: 'memory',
    });
    expect((await docdb()).service.stateDirectory).toBeNull();
  });

  it('lists the open incidents of the ledger read port, at most 50, without notes', async () => {
    const { store, dir } = await seededStore([]);
    const asked: number[] = [];
    const snapshot = await createControlPlaneSnapshot({
      store,
      clock: { now: () => NOW },
      config: testConfig({}, dir),
      agents: agentRegistry([]),
      serviceStartedAt: STARTED,
      stateStoreKind: 'file',
      coordinationKind: 'memory',
      incidents: {
        rollup: async () => Promise.reject(new Error('not used')),
        listOpen: async (limit) => {
          asked.push(limit);
          return [
            {
              incidentId: 'b9c1a0de-0000-5000-8000-000000000001',
              title: 'x'.repeat(300),
              classification: 'alert',
              severity: 'critical',
              status: 'active',
              firstSeenAt: minute(1),
              lastSeenAt: minute(2),
              owner: 'system-monitor-agent',
              acknowledged: true,
              remediationStatus: 'in-progress',
              linkedRunIds: ['r1'],
            },
          ];
        },
      },
    })();
    expect(asked).toEqual([50]);
    expect(snapshot.incidents).toEqual([
      {
        id: 'b9c1a0de-0000-5000-8000-000000000001',
        classification: 'alert',
        severity: 'critical',
        status: 'active',
        title: expect.stringMatching(/^x+/),
        firstSeenAt: minute(1),
        lastSeenAt: minute(2),
        acknowledged: true,
        owner: 'system-monitor-agent',
      },
    ]);
    expect(snapshot.incidents[0]!.title.length).toBeLessThanOrEqual(200);
  });
});
