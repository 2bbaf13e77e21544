import { describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { checkSignedDelivery, signAlertDelivery, verifyAlertSignature } from '../../src/incidents/alert-signature.js';
import { alertChanges } from '../../src/incidents/alertmanager.js';
import { Fingerprints, incidentIdFor, labelHash } from '../../src/incidents/fingerprint.js';
import { approvalBacklogSignal, coordinationSignal, runSignal, serviceGapSignalOf, stateStoreSignal } from '../../src/incidents/sources.js';
import { makeRun } from '../support/runs.js';

const SECRET = 'whsec-unit';
const NOW = Date.parse('2026-03-01T10:00:00Z');
const TS = String(NOW / 1000);

describe('fingerprints and incident ids', () => {
  it('derives the same version-5 UUID for the same fingerprint and different ones otherwise', () => {
    const id = incidentIdFor('run:nightly-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(incidentIdFor(' run:nightly-1 ')).toBe(id);
    expect(incidentIdFor('run:nightly-2')).not.toBe(id);
    expect(() => incidentIdFor('   ')).toThrow(/fingerprint/);
  });

  it('keys an alert by its Alertmanager fingerprint, else by its labels in any order', () => {
    expect(Fingerprints.alert('8f2c', { alertname: 'X' })).toBe('alert:8f2c');
    const a = Fingerprints.alert(undefined, { alertname: 'DiskFull', instance: 'db1' });
    expect(a).toBe(Fingerprints.alert('', { instance: 'db1', alertname: 'DiskFull' }));
    expect(a).toBe(`alert:${labelHash({ alertname: 'DiskFull', instance: 'db1' })}`);
    expect(a).not.toBe(Fingerprints.alert(undefined, { alertname: 'DiskFull', instance: 'db2' }));
  });

  it('gives a run lineage one fingerprint over all its attempts', () => {
    const retrying = runSignal(makeRun({ runId: 'r1', type: 'summarize-content', status: 'retrying', attempt: 1, retry: { attempt: 1, retryLimit: 2, backoffMs: 10, nextRetryAt: '2026-03-01T10:00:00Z', lastError: 'crash' } }));
    const exhausted = runSignal(makeRun({ runId: 'r1', type: 'summarize-content', status: 'failed', attempt: 2, error: 'worker exited with code 3' }));
    expect(retrying).toMatchObject({ signal: { fingerprint: 'run:r1', status: 'watching', severity: 'info', classification: 'retry-recovery' } });
    expect(exhausted).toMatchObject({
      signal: { fingerprint: 'run:r1', severity: 'warning', classification: 'retry-recovery', title: 'summarize-content run r1 failed after 2 attempts', linkedRunIds: ['r1'] },
    });
    expect(exhausted && 'signal' in exhausted && exhausted.signal.summary).toContain('worker exited with code 3');
    expect(runSignal(makeRun({ runId: 'r2', status: 'failed', attempt: 1, failureReason: 'worker-logical-failure' }))).toMatchObject({ signal: { classification: 'run-failure' } });
    expect(runSignal(makeRun({ runId: 'r1', status: 'success', attempt: 2 }))).toEqual({ resolve: 'run:r1' });
    expect(runSignal(makeRun({ status: 'success', attempt: 1 }))).toBeNull();
    expect(runSignal(makeRun({ status: 'failed', failureReason: 'approval_rejected' }))).toBeNull();
    expect(runSignal(makeRun({ status: 'failed', payload: { __incidentId: 'x' } }))).toBeNull();
    // An operator's cancel is no fault: no signal, and an incident the lineage raised while retrying clears.
    expect(runSignal(makeRun({ runId: 'r3', status: 'cancelled', attempt: 1 }))).toEqual({ resolve: 'run:r3' });
  });
});

describe('derived sources', () => {
  it('reports an approval backlog by count or by age', () => {
    const now = new Date(NOW);
    expect(approvalBacklogSignal(3, '2026-03-01T09:30:00Z', now)).toBeNull();
    expect(approvalBacklogSignal(11, '2026-03-01T09:59:00Z', now)).toMatchObject({ severity: 'warning', summary: '11 approvals pending (threshold 10)' });
    expect(approvalBacklogSignal(2, '2026-03-01T08:00:00Z', now)).toMatchObject({ severity: 'warning', summary: 'oldest pending for 120 min (threshold 60)' });
    expect(approvalBacklogSignal(12, '2026-03-01T08:00:00Z', now)?.severity).toBe('critical');
    expect(approvalBacklogSignal(0, null, now)).toBeNull();
  });

  it('reports service gaps, store and coordination faults', () => {
    expect(serviceGapSignalOf({ agentId: 'community-helper', unit: 'ch.service', reason: 'unit-failed', detail: 'ch.service is failed/failed' })).toMatchObject({
      fingerprint: 'service-gap:community-helper',
      classification: 'service-runtime',
      severity: 'critical',
      title: 'community-helper resident service failed',
    });
    expect(stateStoreSignal({ status: 'ok', target: 't', detail: 'fine', collections: {} })).toBeNull();
    expect(stateStoreSignal({ status: 'down', target: '/data/s.json', detail: 'EACCES', collections: {} })).toMatchObject({ severity: 'critical', summary: '/data/s.json: EACCES' });
    expect(coordinationSignal({ store: 'kvstore', status: 'degraded', redisConfigured: true, redisReachable: false, detail: 'redis unreachable' })).toMatchObject({
      fingerprint: 'persistence:coordination',
      severity: 'warning',
    });
  });
});

describe('alert signature', () => {
  const body = '{"status":"firing","alerts":[{"labels":{"alertname":"X"}}]}';
  const signature = signAlertDelivery(SECRET, TS, body);

  it('accepts the HMAC-SHA256 of <timestamp>.<raw body> within 300 s', () => {
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyAlertSignature(SECRET, { rawBody: body, signature, timestamp: TS }, NOW)).toMatchObject({ ok: true });
    expect(verifyAlertSignature(SECRET, { rawBody: body, signature: signature.toUpperCase().replace('SHA256=', 'sha256='), timestamp: TS }, NOW + 299_000)).toMatchObject({ ok: true });
  });

  it('refuses missing, malformed, stale, tampered and wrongly keyed deliveries', () => {
    const check = (d: Partial<{ rawBody: string; signature: string; timestamp: string }>, now = NOW) =>
      verifyAlertSignature(SECRET, { rawBody: body, signature, timestamp: TS, ...d }, now);
    expect(verifyAlertSignature(SECRET, { rawBody: body, signature: undefined, timestamp: TS }, NOW)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyAlertSignature(SECRET, { rawBody: body, signature, timestamp: undefined }, NOW)).toEqual({ ok: false, reason: 'missing' });
    expect(check({ signature: signature.slice(7) })).toEqual({ ok: false, reason: 'malformed' });
    expect(check({ timestamp: '2026-03-01' })).toEqual({ ok: false, reason: 'malformed' });
    expect(check({}, NOW + 301_000)).toEqual({ ok: false, reason: 'stale' });
    expect(check({}, NOW - 301_000)).toEqual({ ok: false, reason: 'stale' });
    expect(check({ rawBody: body.replace('firing', 'resolved') })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ timestamp: String(NOW / 1000 + 1) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ signature: signAlertDelivery('other-secret', TS, body) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a replay through the coordination store, and remembers only signed deliveries', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 10_000 });
    const forged = { rawBody: body, signature: `sha256=${'0'.repeat(64)}`, timestamp: TS };
    expect(await checkSignedDelivery(SECRET, forged, NOW, coordination)).toEqual({ ok: false, reason: 'mismatch' });
    expect(await checkSignedDelivery(SECRET, { rawBody: body, signature, timestamp: TS }, NOW, coordination)).toMatchObject({ ok: true });
    expect(await checkSignedDelivery(SECRET, { rawBody: body, signature, timestamp: TS }, NOW + 1000, coordination)).toEqual({ ok: false, reason: 'replayed' });
    await coordination.close();
  });
});

describe('Alertmanager body', () => {
  it('maps firing alerts to signals and resolved ones to resolutions, keyed by fingerprint', () => {
    const changes = alertChanges({
      version: '4',
      status: 'firing',
      commonLabels: { team: 'storage' },
      alerts: [
        {
          status: 'firing',
          fingerprint: 'f1',
          labels: { alertname: 'DiskFull', severity: 'critical', classification: 'persistence' },
          annotations: { summary: 'Disk almost full', description: '95% used on /data', runbook: 'runbooks/disk.md' },
          startsAt: '2026-03-01T09:00:00Z',
        },
        { status: 'resolved', fingerprint: 'f2', labels: { alertname: 'HighLatency' } },
        { labels: { alertname: 'Odd', severity: 'unknown', classification: 'made-up' } },
      ],
    });
    expect(changes[0]).toEqual({
      kind: 'firing',
      signal: {
        fingerprint: 'alert:f1',
        source: 'alert',
        classification: 'persistence',
        severity: 'critical',
        title: 'Disk almost full',
        summary: '95% used on /data',
        labels: { team: 'storage', alertname: 'DiskFull', severity: 'critical', classification: 'persistence' },
        recommendedSteps: ['runbooks/disk.md'],
      },
    });
    expect(changes[1]).toEqual({ kind: 'resolved', fingerprint: 'alert:f2' });
    expect(changes[2]).toMatchObject({ kind: 'firing', signal: { classification: 'alert', severity: 'warning', title: 'Odd' } });
  });
});
