import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { Fingerprints, incidentIdFor } from '../../src/incidents/fingerprint.js';
import { createIncidentLedger, INCIDENT_COLLECTION } from '../../src/incidents/ledger.js';
import type { StateStore } from '../../src/store/types.js';
import { manualClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { operator } from '../support/identities.js';
import { gapSignal } from '../support/incident-signals.js';

/**
 * The ledger's behaviour on a StateStore driver: it keeps incidents as documents, so it must
 * behave the same on every driver. `makeStore(dir)` builds an unopened store; the same dir
 * reaches the same data.
 */
export function describeLedgerConformance(name: string, makeStore: (dir: string) => StateStore): void {
  describe(`incident ledger on ${name}`, () => {
    const open: StateStore[] = [];
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    async function setup(dir = tempDir('ledger-')) {
      const store = makeStore(dir);
      await store.open();
      open.push(store);
      const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
      const clock = manualClock();
      const invalidated: string[][] = [];
      const ledger = createIncidentLedger({ store, coordination, clock, invalidator: { invalidate: async (tags) => void invalidated.push(tags) } });
      return { store, dir, coordination, clock, ledger, invalidated };
    }

    it('opens one incident per fingerprint, with a stable UUID id, and updates it on repeats', async () => {
      const { ledger, clock, store, invalidated } = await setup();
      const first = await ledger.reportSignal(gapSignal());
      expect(first.incidentId).toBe(incidentIdFor(Fingerprints.serviceGap('doc-specialist')));
      expect(first.incidentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(first).toMatchObject({ status: 'active', severity: 'warning', occurrences: 1, firstSeenAt: '2026-03-01T10:00:00.000Z', episode: 1 });
      expect(first.history.map((h) => h.kind)).toEqual(['opened']);
      expect(invalidated.at(-1)).toEqual(['incidents', `incident:${first.incidentId}`]);

      clock.advance(5 * 60_000);
      const second = await ledger.reportSignal(gapSignal({ severity: 'critical', summary: 'unit failed' }));
      expect(second.incidentId).toBe(first.incidentId);
      expect(second).toMatchObject({ severity: 'critical', occurrences: 2, firstSeenAt: first.firstSeenAt, lastSeenAt: '2026-03-01T10:05:00.000Z' });
      expect(second.history.map((h) => h.kind)).toEqual(['opened', 'severity-changed']);
      expect(await store.listDocs(INCIDENT_COLLECTION)).toHaveLength(1);
    });

    it('resolves, then reopens the same incident as a new episode when the signal returns', async () => {
      const { ledger, clock } = await setup();
      const opened = await ledger.reportSignal(gapSignal());
      clock.advance(60_000);
      const resolved = await ledger.resolveSignal(opened.fingerprint, 'unit running again');
      expect(resolved).toMatchObject({ status: 'resolved', resolution: 'unit running again', resolvedAt: '2026-03-01T10:01:00.000Z' });
      expect(resolved!.remediation.status).toBe('resolved');
      expect(await ledger.resolveSignal('never-seen')).toBeNull();
      clock.advance(60_000);
      const reopened = await ledger.reportSignal(gapSignal());
      expect(reopened).toMatchObject({ incidentId: opened.incidentId, status: 'active', episode: 2, openedAt: '2026-03-01T10:02:00.000Z', resolvedAt: null });
      expect(reopened.history.map((h) => h.kind)).toEqual(['opened', 'resolved', 'reopened']);
    });

    it('refuses to acknowledge a resolved incident (conflict) and changes nothing', async () => {
      const { ledger } = await setup();
      const opened = await ledger.reportSignal(gapSignal());
      await ledger.resolveSignal(opened.fingerprint, 'unit running again');
      const before = await ledger.get(opened.incidentId);
      await expect(ledger.acknowledge(opened.incidentId, operator('ops'), 'late')).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('is resolved') });
      expect(await ledger.get(opened.incidentId)).toEqual(before);
      expect(before).toMatchObject({ acknowledged: false, acknowledgements: [] });
    });

    it('loses no write when acknowledgements, owner changes and signals race on one incident from two ledgers', async () => {
      const { store, coordination, clock, ledger } = await setup();
      // A second ledger over the same store and coordination stands for a second instance.
      const other = createIncidentLedger({ store, coordination, clock, invalidator: { invalidate: async () => undefined } });
      const { incidentId } = await ledger.reportSignal(gapSignal());
      const pick = (i: number) => (i % 2 === 0 ? ledger : other);
      await Promise.all([
        ...Array.from({ length: 15 }, (_, i) => pick(i).acknowledge(incidentId, operator(`ack-${i}`), `note ${i}`)),
        ...Array.from({ length: 15 }, (_, i) => pick(i + 1).setOwner(incidentId, `owner-${i}`, operator(`ops-${i}`), null)),
        ...Array.from({ length: 10 }, (_, i) => pick(i).reportSignal(gapSignal({ linkedRunIds: [`run-${i}`] }))),
      ]);
      const stored = (await ledger.get(incidentId))!;
      expect(stored.acknowledgements).toHaveLength(15);
      expect(new Set(stored.acknowledgements.map((a) => a.actor)).size).toBe(15);
      expect(stored.ownershipHistory).toHaveLength(15);
      expect(stored.linkedRunIds.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `run-${i}`).sort());
      expect(stored.history.filter((h) => h.kind === 'acknowledged')).toHaveLength(15);
      expect(stored.history.filter((h) => h.kind === 'owner-changed')).toHaveLength(15);
    });

    it('keeps incidents across close and reopen of the store', async () => {
      const { ledger, store, dir } = await setup();
      const { incidentId } = await ledger.reportSignal(gapSignal());
      await ledger.acknowledge(incidentId, operator('ops'), 'looking');
      await store.close();
      open.splice(open.indexOf(store), 1);
      const again = await setup(dir);
      const stored = await again.ledger.get(incidentId);
      expect(stored).toMatchObject({ incidentId, acknowledged: true, acknowledgedBy: 'ops' });
      expect(stored!.acknowledgements).toEqual([{ at: '2026-03-01T10:00:00.000Z', actor: 'ops', note: 'looking' }]);
    });

    it('filters, orders and pages the list', async () => {
      const { ledger } = await setup();
      await ledger.reportSignal(gapSignal());
      await ledger.reportSignal({ ...gapSignal(), fingerprint: 'knowledge:stale:a.md', source: 'signal', classification: 'knowledge', severity: 'info', title: 'a.md stale' });
      await ledger.reportSignal({ ...gapSignal(), fingerprint: 'persistence:state-store', source: 'persistence', classification: 'persistence', severity: 'critical', title: 'store down' });
      await ledger.resolveSignal('knowledge:stale:a.md');
      const open = await ledger.list({});
      expect(open.incidents.map((i) => i.title)).toEqual(['store down', 'doc-specialist resident service stopped']);
      expect(open.total).toBe(2);
      expect((await ledger.list({ includeResolved: true })).total).toBe(3);
      expect((await ledger.list({ status: 'resolved' })).incidents.map((i) => i.classification)).toEqual(['knowledge']);
      expect((await ledger.list({ severity: 'critical' })).incidents).toHaveLength(1);
      expect((await ledger.list({ classification: 'service-runtime' })).incidents).toHaveLength(1);
      expect((await ledger.list({ limit: 1, offset: 1 })).incidents.map((i) => i.severity)).toEqual(['warning']);
    });
  });
}
