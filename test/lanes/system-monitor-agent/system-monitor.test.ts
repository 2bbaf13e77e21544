import { mkdtempSync, statfsSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostChecks, postureOf } from '../../../agents/system-monitor-agent/health-checks.js';
import type { HostFigures } from '../../../agents/system-monitor-agent/host-figures.js';
import { laneOf, systemMonitorAgent } from '../../../agents/system-monitor-agent/lane-router.js';
import { systemMonitor } from '../../../agents/system-monitor-agent/system-monitor.js';
import {
  agentEntry,
  quietSnapshot,
  typeFigures,
  withSnapshot,
} from '../../support/control-plane-snapshot.js';

const workspaceRoot = mkdtempSync(join(tmpdir(), 'monitor-ws-'));
const context = { workspaceRoot, runId: 'run-1' };

function host(overrides: Partial<HostFigures> = {}): HostFigures {
  return {
    memory: { totalBytes: 16e9, freeBytes: 8e9, freeRatio: 0.5 },
    workerRssBytes: 50e6,
    load: { one: 0.5, five: 0.5, fifteen: 0.5, cpuCount: 4, onePerCpu: 0.13 },
    hostUptimeSeconds: 1000,
    disk: { path: '/state', totalBytes: 100e9, freeBytes: 50e9, freeRatio: 0.5, error: null },
    ...overrides,
  };
}

describe('system-monitor lane', () => {
  it('reports the host figures the OS gives, with the disk of the state folder', async () => {
    const stateDirectory = mkdtempSync(join(tmpdir(), 'monitor-state-'));
    const snapshot = quietSnapshot();
    snapshot.service.stateDirectory = stateDirectory;
    const result = await systemMonitor(withSnapshot(snapshot, { type: 'health' }), context);
    if (!result.success) throw new Error(result.error);

    expect(result.host.memory.totalBytes).toBe(totalmem());
    expect(result.host.memory.freeBytes).toBeGreaterThan(0);
    expect(result.host.memory.freeBytes).toBeLessThanOrEqual(totalmem());
    expect(result.host.load.cpuCount).toBe(cpus().length);
    expect(result.host.workerRssBytes).toBeGreaterThan(1e6);
    const fs = statfsSync(stateDirectory);
    expect(result.host.disk).toMatchObject({ path: `outside:${basename(stateDirectory)}`, totalBytes: fs.blocks * fs.bsize, error: null });
    expect(result.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['memory', 'load', 'disk', 'queue', 'failure-rate']));
    expect(result.posture).toBe(postureOf(result.checks));
    expect(result.specialistContract.status).toBe('completed');
  });

  it('falls back to the workspace disk when the store has no local folder', async () => {
    const result = await systemMonitor(withSnapshot(quietSnapshot(), { type: 'resources' }), context);
    if (!result.success) throw new Error(result.error);
    expect(result.host.disk.path).toBe('.');
    expect(result.checks.map((c) => c.name)).toEqual(['memory', 'load', 'disk']);
  });

  it('is degraded when a lane fails more than half its runs, and names it', async () => {
    const snapshot = quietSnapshot({
      runs: { window: 18, byType: [typeFigures('security-audit', 2, 6), typeFigures('summarize-content', 10, 0)], recent: [] },
    });
    const result = await systemMonitor(withSnapshot(snapshot, { type: 'queue' }), context);
    if (!result.success) throw new Error(result.error);
    expect(result.posture).toBe('degraded');
    const failing = result.checks.find((c) => c.name === 'failure-rate:security-audit');
    expect(failing).toMatchObject({ status: 'degraded', value: 0.75, detail: '6 of 8 finished security-audit runs failed' });
    expect(result.checks.find((c) => c.name === 'failure-rate:summarize-content')).toBeUndefined();
    expect(result.failureRates).toContainEqual({ type: 'security-audit', finished: 8, failed: 6, failureRate: 0.75 });
  });

  it('is critical when nearly every run fails, and degraded under queue pressure', async () => {
    const failing = quietSnapshot({ runs: { window: 20, byType: [typeFigures('data-extraction', 2, 18)], recent: [] } });
    const critical = await systemMonitor(withSnapshot(failing, { type: 'queue' }), context);
    expect(critical).toMatchObject({ success: true, posture: 'critical' });

    const busy = quietSnapshot({ queue: { queued: 25, processing: 2, held: 0, retrying: 0 } });
    const degraded = await systemMonitor(withSnapshot(busy, { type: 'queue' }), context);
    if (!degraded.success) throw new Error(degraded.error);
    expect(degraded.posture).toBe('degraded');
    expect(degraded.checks.find((c) => c.name === 'queue')).toMatchObject({ status: 'degraded', value: 25 });
  });

  it('judges the queue of an admission-only instance by the runs other instances execute', async () => {
    const service = { ...quietSnapshot().service, stateStore: 'postgres', concurrency: 0 };
    const fleet = await systemMonitor(withSnapshot(quietSnapshot({ service, queue: { queued: 200, processing: 32, held: 0, retrying: 0 } }), { type: 'queue' }), context);
    if (!fleet.success) throw new Error(fleet.error);
    expect(fleet.checks.find((c) => c.name === 'queue')).toMatchObject({
      status: 'ok',
      threshold: 'more than 320 runs waiting (10 × 32 runs executing across instances) is degraded',
    });
    const stalled = await systemMonitor(withSnapshot(quietSnapshot({ service, queue: { queued: 11, processing: 0, held: 0, retrying: 0 } }), { type: 'queue' }), context);
    if (!stalled.success) throw new Error(stalled.error);
    expect(stalled.checks.find((c) => c.name === 'queue')).toMatchObject({ status: 'degraded', value: 11 });
  });

  it('lists service-expected agents with their probe unavailable, degraded when one cannot be spawned', async () => {
    const snapshot = quietSnapshot({
      agents: [
        agentEntry('doc-specialist', ['drift-repair'], {
          lifecycleMode: 'service-expected',
          serviceExpected: true,
          serviceUnitName: 'doc-specialist.service',
          entrypointAvailable: false,
        }),
        agentEntry('summarization-agent', ['summarize-content']),
      ],
    });
    const result = await systemMonitor(withSnapshot(snapshot, { type: 'services' }), context);
    if (!result.success) throw new Error(result.error);
    expect(result.services).toEqual([
      { agentId: 'doc-specialist', serviceUnitName: 'doc-specialist.service', entrypointAvailable: false, probe: 'probe unavailable' },
    ]);
    expect(result.posture).toBe('degraded');
  });

  it('refuses without a snapshot and for an unknown check type', async () => {
    const bare = await systemMonitor({ type: 'health' }, context);
    expect(bare).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
    expect((bare as { error: string }).error).toContain('__controlPlane');
    // An unknown check type never reaches the lane: the worker refuses it with the schema's words.
    const unknown = await systemMonitorAgent({ type: 'weather' }, {}).run(withSnapshot(quietSnapshot(), { type: 'weather' }), context);
    expect(unknown).toMatchObject({ success: false, taskType: 'system-monitor', error: 'payload refused: /type must be one of: health, resources, queue, services' });
  });
});

describe('host thresholds', () => {
  it('marks memory below 10% free degraded and below 3% critical', () => {
    const low = hostChecks(host({ memory: { totalBytes: 100, freeBytes: 5, freeRatio: 0.05 } }));
    expect(low.find((c) => c.name === 'memory')!.status).toBe('degraded');
    const exhausted = hostChecks(host({ memory: { totalBytes: 100, freeBytes: 2, freeRatio: 0.02 } }));
    expect(postureOf(exhausted)).toBe('critical');
    expect(postureOf(hostChecks(host()))).toBe('healthy');
  });

  it('marks load per CPU above 1.5 degraded and an unreadable disk unknown without moving the posture', () => {
    const loaded = hostChecks(host({ load: { one: 8, five: 6, fifteen: 4, cpuCount: 4, onePerCpu: 2 } }));
    expect(loaded.find((c) => c.name === 'load')!.status).toBe('degraded');
    const blind = hostChecks(
      host({ disk: { path: '/gone', totalBytes: null, freeBytes: null, freeRatio: null, error: 'ENOENT' } }),
    );
    expect(blind.find((c) => c.name === 'disk')!.status).toBe('unknown');
    expect(postureOf(blind)).toBe('healthy');
  });
});

describe('lane routing', () => {
  it('follows a lane named by the service, else the payload shape', () => {
    expect(laneOf({}, { ORCHESTRATOR_TASK_TYPE: 'system-monitor' })).toBe('system-monitor');
    expect(laneOf({ __taskType: 'incident-triage', type: 'health' }, {})).toBe('incident-triage');
    expect(laneOf({ type: 'health' }, {})).toBe('system-monitor');
    expect(laneOf({}, {})).toBe('incident-triage');
  });
});
