import { Fingerprints } from '../../src/incidents/fingerprint.js';
import type { IncidentSignal } from '../../src/incidents/types.js';

/** A service-gap signal (doc-specialist's resident service stopped), with any field overridden. */
export const gapSignal = (overrides: Partial<IncidentSignal> = {}): IncidentSignal => ({
  fingerprint: Fingerprints.serviceGap('doc-specialist'),
  source: 'service-gap',
  classification: 'service-runtime',
  severity: 'warning',
  title: 'doc-specialist resident service stopped',
  summary: 'orchestrator-doc-specialist.service is inactive/dead',
  ...overrides,
});
