import type { IncidentReadPort, IncidentRollup } from '../../src/incidents/read-port.js';

/** The rollup of a ledger with no incidents, with `overrides` applied. */
export const incidentRollup = (overrides: Partial<IncidentRollup> = {}): IncidentRollup => ({
  overallStatus: 'ok',
  openCount: 0,
  activeCount: 0,
  watchingCount: 0,
  resolvedCount: 0,
  bySeverity: { critical: 0, warning: 0, info: 0 },
  topClassifications: [],
  ...overrides,
});

/** A read port over a ledger with no incidents. */
export const emptyIncidentReadPort: IncidentReadPort = {
  rollup: async () => incidentRollup(),
  listOpen: async () => [],
};
