import type { IncidentRecord } from '../incidents/types.js';
import type { StateStore } from '../store/types.js';
import type { ConditionSources } from './conditions.js';

/** Incidents beyond this many open at once are not looked at by one pass (the ledger sorts the most urgent first). */
const OPEN_INCIDENTS_READ = 500;

/** The reads of the incident ledger alerting needs: its list, as `createIncidentLedger` offers it. */
export interface IncidentLister {
  list(query: { limit: number }): Promise<{ incidents: IncidentRecord[] }>;
}

/** The condition sources over the shared store's runs and the incident ledger. */
export function conditionSources(store: Pick<StateStore, 'listRuns'>, incidents: IncidentLister): ConditionSources {
  return {
    listRuns: (query) => store.listRuns(query),
    openIncidents: async () =>
      (await incidents.list({ limit: OPEN_INCIDENTS_READ })).incidents.map((i) => ({
        incidentId: i.incidentId,
        title: i.title,
        severity: i.severity,
        classification: i.classification,
        status: i.status,
        escalationLevel: i.escalation.level,
      })),
  };
}
