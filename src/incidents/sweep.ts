import type { Logger } from 'pino';
import type { StateStore } from '../store/types.js';
import { SWEPT_SOURCES } from './derived-signals.js';
import { Fingerprints, incidentIdFor } from './fingerprint.js';
import type { ConditionCheck } from './incident-condition.js';
import type { IncidentLedger } from './ledger.js';
import { runSignal } from './sources.js';
import type { IncidentRecord, IncidentSignal } from './types.js';

/** Failed and retrying runs the sweep re-reads (newest first): catches a settle the hook missed. */
const RUN_SCAN_WINDOW = 50;

export interface IncidentSweepDeps {
  ledger: IncidentLedger;
  store: StateStore;
  logger: Logger;
  /** The derived signals as they stand now (src/incidents/derived-signals.ts). */
  derivedSignals: () => Promise<IncidentSignal[]>;
  /** Looks at an incident's own condition (src/incidents/incident-condition.ts). */
  checkCondition: ConditionCheck;
  /** Re-reads the runs of an incident's unsettled remediation tasks. */
  syncTasks: (incidentId: string) => Promise<void>;
  /** Lets the policies act on one incident. */
  runPolicies: (incidentId: string) => Promise<unknown>;
}

/** The sweep of derived sources and open incidents (see `sweep` below and docs/incidents.md). */
export function createIncidentSweep(deps: IncidentSweepDeps): () => Promise<void> {
  const { ledger, store, logger } = deps;

  /**
   * A run lineage's incident clears when its type works again: the run itself succeeded after
   * all, or a later run of the same type succeeded.
   */
  async function resolveRecoveredRun(record: IncidentRecord): Promise<void> {
    const condition = await deps.checkCondition(record);
    if (condition.state === 'cleared') await ledger.resolveSignal(record.fingerprint, condition.seen, 'incident-sweep');
  }

  /**
   * One sweep: reports the derived signals present now and resolves the swept incidents whose
   * signal is gone; re-reads recent failed and retrying runs; then lets the policies act on every
   * open incident (owner, remediation, retry, verifier, escalation on SLA breach).
   */
  async function sweep(): Promise<void> {
    const existing = new Map((await ledger.all()).map((r) => [r.fingerprint, r]));
    const present = await deps.derivedSignals();
    const presentKeys = new Set(present.map((s) => s.fingerprint));
    for (const signal of present) await guarded(incidentIdFor(signal.fingerprint), () => ledger.reportSignal(signal));
    for (const record of existing.values()) {
      if (record.status !== 'resolved' && SWEPT_SOURCES.has(record.source) && !presentKeys.has(record.fingerprint)) {
        await guarded(record.incidentId, () => ledger.resolveSignal(record.fingerprint, 'signal cleared', 'incident-sweep'));
      }
    }
    const [failed, retrying] = await Promise.all([
      store.listRuns({ status: 'failed', includeInternal: true, limit: RUN_SCAN_WINDOW }),
      store.listRuns({ status: 'retrying', includeInternal: true, limit: RUN_SCAN_WINDOW }),
    ]);
    for (const run of [...retrying.items, ...failed.items]) {
      const known = existing.get(Fingerprints.run(run.runId));
      if (known && (run.status === 'failed' || known.status === 'watching')) continue;
      const change = runSignal(run);
      if (change && 'signal' in change) await guarded(incidentIdFor(change.signal.fingerprint), () => ledger.reportSignal(change.signal));
    }
    for (const record of existing.values()) {
      if (record.source === 'run' && record.status !== 'resolved') await guarded(record.incidentId, () => resolveRecoveredRun(record));
    }
    for (const record of await ledger.all()) {
      if (record.status === 'resolved') continue;
      await guarded(record.incidentId, async () => {
        await deps.syncTasks(record.incidentId);
        await deps.runPolicies(record.incidentId);
      });
    }
  }

  /** One incident's trouble (a busy lock, a failing admission) must not stop the sweep of the others. */
  async function guarded(incidentId: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (err) {
      logger.warn({ err, incidentId }, 'incident sweep step failed; retried next sweep');
    }
  }

  return sweep;
}
