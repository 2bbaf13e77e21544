import { describe, expect, it } from 'vitest';
import {
  createServiceProbe,
  parseSystemctlShow,
  serviceGapSignals,
  type ServiceUnitReading,
} from '../../src/agents/service-probe.js';

// Captured from `systemctl --user show <unit> --property=LoadState,ActiveState,SubState,UnitFileState`.
const ACTIVE = 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\n';
const INACTIVE = 'LoadState=loaded\nActiveState=inactive\nSubState=dead\nUnitFileState=disabled\n';
const NOT_FOUND = 'LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\n';
const FAILED = 'LoadState=loaded\nActiveState=failed\nSubState=failed\nUnitFileState=enabled\n';

const UNIT = 'orchestrator-doc-specialist.service';
const OTHER = 'orchestrator-community-helper.service';
const NOW = new Date('2026-03-01T12:00:00.000Z');

describe('parseSystemctlShow', () => {
  it('reads an active running unit as installed and running', () => {
    expect(parseSystemctlShow(ACTIVE)).toEqual({
      serviceInstalled: true,
      serviceRunning: true,
      serviceUnitState: 'active',
      serviceUnitSubState: 'running',
      serviceUnitFileState: 'enabled',
    });
  });
  it('reads inactive/dead as installed but not running', () => {
    expect(parseSystemctlShow(INACTIVE)).toMatchObject({ serviceInstalled: true, serviceRunning: false, serviceUnitState: 'inactive', serviceUnitSubState: 'dead' });
  });
  it('reads LoadState=not-found as not installed and not running, with no unit file state', () => {
    expect(parseSystemctlShow(NOT_FOUND)).toEqual({
      serviceInstalled: false,
      serviceRunning: false,
      serviceUnitState: 'inactive',
      serviceUnitSubState: 'dead',
      serviceUnitFileState: null,
    });
  });
  it('reads a failed unit as installed, not running', () => {
    expect(parseSystemctlShow(FAILED)).toMatchObject({ serviceInstalled: true, serviceRunning: false, serviceUnitState: 'failed' });
  });
  it('needs both ActiveState=active and SubState=running', () => {
    expect(parseSystemctlShow('LoadState=loaded\nActiveState=active\nSubState=exited\n').serviceRunning).toBe(false);
  });
});

describe('createServiceProbe', () => {
  const outputs: Record<string, string> = { [UNIT]: ACTIVE, [OTHER]: NOT_FOUND };

  it('serves cached readings and probes only on refresh', async () => {
    let calls = 0;
    const probe = createServiceProbe({ runShow: async (u) => (calls++, outputs[u]!), ttlMs: 60_000, now: () => NOW });
    expect(probe.current(UNIT)).toMatchObject({ hostServiceStatus: 'not-probed', serviceInstalled: null, serviceRunning: null });
    expect(calls).toBe(0);
    await probe.refresh([UNIT, OTHER]);
    expect(calls).toBe(2);
    expect(probe.current(UNIT)).toMatchObject({ hostServiceStatus: 'running', serviceInstalled: true, serviceRunning: true, reason: null });
    expect(probe.current(OTHER)).toMatchObject({ hostServiceStatus: 'not-installed', serviceInstalled: false, serviceRunning: false });
    probe.current(UNIT);
    expect(calls).toBe(2);
  });

  it('reports stopped and failed units with real fields', async () => {
    const probe = createServiceProbe({ runShow: async (u) => (u === UNIT ? INACTIVE : FAILED), ttlMs: 60_000, now: () => NOW });
    await probe.refresh([UNIT, OTHER]);
    expect(probe.current(UNIT)).toMatchObject({ hostServiceStatus: 'stopped', serviceRunning: false, serviceUnitFileState: 'disabled' });
    expect(probe.current(OTHER)).toMatchObject({ hostServiceStatus: 'failed', serviceUnitState: 'failed' });
  });

  it('answers null fields with probe-unavailable when systemctl is missing (ENOENT)', async () => {
    const enoent = Object.assign(new Error('spawn systemctl ENOENT'), { code: 'ENOENT' });
    const probe = createServiceProbe({ runShow: async () => Promise.reject(enoent), ttlMs: 60_000, now: () => NOW });
    await probe.refresh([UNIT]);
    expect(probe.current(UNIT)).toEqual({
      unit: UNIT,
      hostServiceStatus: 'probe-unavailable',
      serviceInstalled: null,
      serviceRunning: null,
      serviceUnitState: null,
      serviceUnitSubState: null,
      serviceUnitFileState: null,
      reason: expect.stringContaining('ENOENT'),
      probedAt: NOW.toISOString(),
    });
  });

  it('names a missing user bus and a timeout', async () => {
    const bus = Object.assign(new Error('Command failed'), { code: 1, stderr: 'Failed to connect to bus: No medium found' });
    const timeout = Object.assign(new Error('Command failed'), { killed: true, signal: 'SIGTERM' });
    const probe = createServiceProbe({ runShow: async (u) => Promise.reject(u === UNIT ? bus : timeout), ttlMs: 60_000, now: () => NOW });
    await probe.refresh([UNIT, OTHER]);
    expect(probe.current(UNIT).reason).toMatch(/bus/);
    expect(probe.current(OTHER).reason).toMatch(/timeout/);
    expect(probe.current(OTHER).serviceRunning).toBeNull();
  });

  it('stops trusting a reading older than the ttl', async () => {
    let clock = NOW.getTime();
    const probe = createServiceProbe({ runShow: async () => ACTIVE, ttlMs: 1000, now: () => new Date(clock) });
    await probe.refresh([UNIT]);
    clock += 5000;
    expect(probe.current(UNIT)).toMatchObject({ hostServiceStatus: 'probe-unavailable', serviceRunning: null });
  });
});

describe('serviceGapSignals', () => {
  const agents = [
    { id: 'doc-specialist', serviceExpected: true, serviceUnitName: UNIT },
    { id: 'community-helper', serviceExpected: true, serviceUnitName: OTHER },
    { id: 'summarization-agent', serviceExpected: false, serviceUnitName: null },
  ];

  async function readingsFor(outputs: Record<string, string | Error>): Promise<Map<string, ServiceUnitReading>> {
    const probe = createServiceProbe({
      runShow: async (u) => {
        const out = outputs[u]!;
        if (out instanceof Error) throw out;
        return out;
      },
      ttlMs: 60_000,
      now: () => NOW,
    });
    const readings = await probe.refresh(Object.keys(outputs));
    return new Map(readings.map((r) => [r.unit, r]));
  }

  it('flags a missing unit and a stopped unit of service-expected agents', async () => {
    const readings = await readingsFor({ [UNIT]: NOT_FOUND, [OTHER]: INACTIVE });
    expect(serviceGapSignals(agents, readings)).toEqual([
      { agentId: 'doc-specialist', unit: UNIT, reason: 'unit-missing', detail: expect.any(String) },
      { agentId: 'community-helper', unit: OTHER, reason: 'unit-stopped', detail: expect.stringContaining('inactive/dead') },
    ]);
  });

  it('raises nothing for running units or when the probe is unavailable', async () => {
    const readings = await readingsFor({ [UNIT]: ACTIVE, [OTHER]: Object.assign(new Error('x'), { code: 'ENOENT' }) });
    expect(serviceGapSignals(agents, readings)).toEqual([]);
  });

  it('accepts the probe lookup directly', async () => {
    const probe = createServiceProbe({ runShow: async () => FAILED, ttlMs: 60_000, now: () => NOW });
    await probe.refresh([UNIT, OTHER]);
    expect(serviceGapSignals(agents, probe.current).map((s) => s.reason)).toEqual(['unit-failed', 'unit-failed']);
  });
});
