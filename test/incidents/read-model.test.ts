import { describe, expect, it } from 'vitest';
import { Fingerprints } from '../../src/incidents/fingerprint.js';
import { createIncidentReadPort } from '../../src/incidents/read-model.js';
import { applySignal, resolveRecord } from '../../src/incidents/record.js';
import type { IncidentRecord, IncidentSignal } from '../../src/incidents/types.js';

const at = (minute: number) => new Date(Date.parse('2026-03-01T10:00:00Z') + minute * 60_000);
const open = (signal: IncidentSignal, minute: number) => applySignal(null, signal, at(minute))!;
const signal = (fingerprint: string, classification: string, severity: IncidentSignal['severity'], status: IncidentSignal['status'] = 'active'): IncidentSignal => ({
  fingerprint,
  classification,
  severity,
  status,
  title: fingerprint,
  summary: 's',
});

describe('incident read port', () => {
  const records: IncidentRecord[] = [
    open(signal(Fingerprints.run('a'), 'retry-recovery', 'info', 'watching'), 0),
    open(signal(Fingerprints.run('b'), 'retry-recovery', 'warning'), 1),
    open(signal(Fingerprints.serviceGap('community-helper'), 'service-runtime', 'critical'), 2),
    open(signal('alert:x', 'alert', 'warning'), 3),
    resolveRecord(open(signal('alert:y', 'alert', 'critical'), 4), at(5), 'alert resolved', 'alertmanager')!,
  ];
  const port = createIncidentReadPort({ all: async () => records });

  it('rolls the ledger up by status, severity and classification', async () => {
    expect(await port.rollup()).toEqual({
      overallStatus: 'critical',
      openCount: 4,
      activeCount: 3,
      watchingCount: 1,
      resolvedCount: 1,
      bySeverity: { critical: 1, warning: 2, info: 1 },
      topClassifications: [
        { classification: 'service-runtime', label: 'Resident services', count: 1, activeCount: 1, watchingCount: 0, highestSeverity: 'critical' },
        { classification: 'retry-recovery', label: 'Retry recovery', count: 2, activeCount: 1, watchingCount: 1, highestSeverity: 'warning' },
        { classification: 'alert', label: 'External alerts', count: 1, activeCount: 1, watchingCount: 0, highestSeverity: 'warning' },
      ],
    });
    expect(await createIncidentReadPort({ all: async () => [records[4]!] }).rollup()).toMatchObject({ overallStatus: 'ok', openCount: 0, resolvedCount: 1 });
  });

  it('lists open incidents most severe first, then most recently seen', async () => {
    const digests = await port.listOpen(3);
    expect(digests.map((d) => d.title)).toEqual(['service-gap:community-helper', 'alert:x', 'run:b']);
    expect(digests[0]).toEqual({
      incidentId: records[2]!.incidentId,
      title: 'service-gap:community-helper',
      classification: 'service-runtime',
      severity: 'critical',
      status: 'active',
      firstSeenAt: '2026-03-01T10:02:00.000Z',
      lastSeenAt: '2026-03-01T10:02:00.000Z',
      owner: null,
      acknowledged: false,
      remediationStatus: 'ready',
      linkedRunIds: [],
    });
  });
});
