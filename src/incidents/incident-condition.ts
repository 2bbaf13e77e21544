import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { SWEPT_SOURCES } from './derived-signals.js';
import { Fingerprints } from './fingerprint.js';
import type { IncidentRecord, IncidentSignal } from './types.js';

/**
 * What a look at the incident's own condition found. `cleared`: the cause is gone; `present`: it
 * is still there; `unknown`: the service cannot look (an alert clears when Alertmanager says so,
 * a module's signal when that module says so). `checked` and `seen` say what was looked at and
 * what was found, in words an operator reads on the incident.
 */
export interface ConditionReading {
  state: 'cleared' | 'present' | 'unknown';
  checked: string;
  seen: string;
}

export interface ConditionDeps {
  store: StateStore;
  /** The derived signals as they stand now (src/incidents/derived-signals.ts). */
  derivedSignals: () => Promise<IncidentSignal[]>;
}

export type ConditionCheck = (record: IncidentRecord) => Promise<ConditionReading>;

const describeRun = (run: RunRecord) => `${run.runId}, ${run.status}${run.error ? ` (${run.error.slice(0, 200)})` : ''}`;

/**
 * Looks at what opened the incident, never at what a remediation or verifier run says of itself:
 * a run lineage's type has run again and succeeded (the run itself after all, or a later run of
 * its type), a derived signal is no longer derived.
 */
export function createConditionCheck(deps: ConditionDeps): ConditionCheck {
  const { store } = deps;

  async function runLineage(record: IncidentRecord): Promise<ConditionReading> {
    const runId = record.fingerprint.slice(Fingerprints.run('').length);
    const run = await store.getRun(runId);
    if (!run) return { state: 'unknown', checked: `run ${runId}`, seen: 'the run is no longer stored (retention removed it)' };
    const checked = `${run.type} runs since run ${run.runId} failed`;
    if (run.status === 'success') return { state: 'cleared', checked, seen: `run ${run.runId} succeeded on attempt ${run.attempt}` };
    const since = run.finishedAt ?? run.updatedAt;
    const newestSuccess = (await store.listRuns({ type: run.type, status: 'success', includeInternal: true, limit: 1 })).items[0];
    if (newestSuccess && newestSuccess.createdAt > since) {
      return { state: 'cleared', checked, seen: `a later ${run.type} run (${newestSuccess.runId}) succeeded` };
    }
    const latest = (await store.listRuns({ type: run.type, includeInternal: true, limit: 1 })).items[0] ?? run;
    return { state: 'present', checked, seen: `no ${run.type} run has succeeded since; the latest is ${describeRun(latest)}` };
  }

  async function derivedSignal(record: IncidentRecord): Promise<ConditionReading> {
    const present = (await deps.derivedSignals()).find((s) => s.fingerprint === record.fingerprint);
    const checked = `the ${record.classification} signal ${record.fingerprint}`;
    return present ? { state: 'present', checked, seen: `still present: ${present.summary}` } : { state: 'cleared', checked, seen: 'no longer present' };
  }

  return async (record) => {
    if (record.source === 'run') return runLineage(record);
    if (SWEPT_SOURCES.has(record.source)) return derivedSignal(record);
    if (record.source === 'alert') return { state: 'unknown', checked: `alert ${record.fingerprint}`, seen: 'it clears when Alertmanager sends it resolved' };
    return { state: 'unknown', checked: `signal ${record.fingerprint}`, seen: 'it clears when the module that reported it says so' };
  };
}
