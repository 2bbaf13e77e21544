import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { activeConditions } from '../../src/alerts/conditions.js';
import type { AlertRule } from '../../src/config/alerts.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const NOW = Date.parse('2026-03-01T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const ahead = (ms: number) => new Date(NOW + ms).toISOString();

const stores: StateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function storeWith(runs: RunRecord[]): Promise<StateStore> {
  const store = openStateStore(join(tempDir('alert-conditions-'), 'state.json'));
  await store.open();
  stores.push(store);
  for (const run of runs) await store.mutateRun(run.runId, insertIfAbsent(run));
  return store;
}

function rule(id: string, match: AlertRule['match'], dedupeWindowSeconds = 600): AlertRule {
  return { id, match, severity: 'warning', dedupeWindowSeconds, sinks: ['out'] };
}

const noIncidents = async () => [];

describe('alert rule conditions over stored runs', () => {
  it('tells a final failure (no retry left) from a failed attempt that will be retried, within the window only', async () => {
    const store = await storeWith([
      makeRun({ runId: 'final-1', type: 'doc-sync', status: 'failed', queueState: null, finishedAt: ago(60_000), updatedAt: ago(60_000), error: 'boom' }),
      makeRun({ runId: 'old-final', type: 'doc-sync', status: 'failed', queueState: null, finishedAt: ago(3_600_000), updatedAt: ago(3_600_000) }),
      makeRun({ runId: 'retry-1', type: 'repo-audit', status: 'retrying', queueState: null, finishedAt: null, updatedAt: ago(30_000) }),
    ]);
    const sources = { listRuns: (q: Parameters<StateStore['listRuns']>[0]) => store.listRuns(q), openIncidents: noIncidents };

    const final = await activeConditions(rule('final', { status: 'failed', finalFailureOnly: true }), sources, NOW);
    expect(final.map((c) => c.subject)).toEqual(['doc-sync']);
    expect(final[0]!.summary).toContain('1 doc-sync run(s) failed');
    expect(final[0]!.labels).toEqual({ type: 'doc-sync', runId: 'final-1' });

    const any = await activeConditions(rule('any', { status: 'failed' }), sources, NOW);
    expect(any.map((c) => c.subject).sort()).toEqual(['doc-sync', 'repo-audit']);

    const typed = await activeConditions(rule('typed', { status: 'failed', type: 'repo-audit' }), sources, NOW);
    expect(typed.map((c) => c.labels.runId)).toEqual(['retry-1']);

    // Past the window the failures no longer hold the condition: that is its recovery.
    expect(await activeConditions(rule('final', { status: 'failed', finalFailureOnly: true }), sources, NOW + 601_000)).toEqual([]);
  });

  it('finds runs running too long, approvals about to expire and a queue whose oldest run waits too long', async () => {
    const store = await storeWith([
      makeRun({ runId: 'long', status: 'running', queueState: null, startedAt: ago(45 * 60_000) }),
      makeRun({ runId: 'short', status: 'running', queueState: null, startedAt: ago(60_000) }),
      makeRun({
        runId: 'held',
        queueState: 'held',
        approval: { ...makeRun().approval, required: true, status: 'pending', requestedAt: ago(60_000), expiresAt: ahead(5 * 60_000) },
      }),
      makeRun({
        runId: 'held-later',
        queueState: 'held',
        approval: { ...makeRun().approval, required: true, status: 'pending', requestedAt: ago(60_000), expiresAt: ahead(5 * 3_600_000) },
      }),
      makeRun({ runId: 'waiting', createdAt: ago(900_000), updatedAt: ago(900_000) }),
    ]);
    const sources = { listRuns: (q: Parameters<StateStore['listRuns']>[0]) => store.listRuns(q), openIncidents: noIncidents };

    const long = await activeConditions(rule('long', { runningLongerThanMinutes: 30 }), sources, NOW);
    expect(long.map((c) => c.subject)).toEqual(['long']);

    const expiring = await activeConditions(rule('expiring', { approvalExpiringWithinMinutes: 10 }), sources, NOW);
    expect(expiring.map((c) => c.subject)).toEqual(['held']);

    const stalled = await activeConditions(rule('stalled', { oldestPendingOlderThanSeconds: 600 }), sources, NOW);
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({ subject: 'queue', labels: { runId: 'waiting' } });
    expect(await activeConditions(rule('stalled', { oldestPendingOlderThanSeconds: 1200 }), sources, NOW)).toEqual([]);
  });

  it('matches incidents opened (active) or escalated', async () => {
    const incidents = [
      { incidentId: 'i-1', title: 'disk full', severity: 'critical', classification: 'service-runtime', status: 'active', escalationLevel: 0 },
      { incidentId: 'i-2', title: 'slow', severity: 'warning', classification: 'alert', status: 'watching', escalationLevel: 2 },
    ];
    const sources = { listRuns: async () => ({ items: [] }), openIncidents: async () => incidents };
    expect((await activeConditions(rule('opened', { incident: 'opened' }), sources, NOW)).map((c) => c.subject)).toEqual(['i-1']);
    const escalated = await activeConditions(rule('escalated', { incident: 'escalated' }), sources, NOW);
    expect(escalated.map((c) => c.subject)).toEqual(['i-2']);
    expect(escalated[0]!.summary).toContain('level 2');
  });
});
