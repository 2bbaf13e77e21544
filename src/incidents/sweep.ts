import type { Logger } from 'pino';
import type { ServiceGapSignal } from '../agents/service-probe.js';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import { Fingerprints, incidentIdFor } from './fingerprint.js';
import type { IncidentLedger } from './ledger.js';
import {
  approvalBacklogSignal,
  coordinationSignal,
  DEFAULT_APPROVAL_BACKLOG,
  knowledgeSignals,
  runSignal,
  serviceGapSignalOf,
  stateStoreSignal,
  type ApprovalBacklogThresholds,
  type KnowledgeHealth,
} from './sources.js';
import type { IncidentRecord, IncidentSignal, IncidentSource } from './types.js';

/** Sources whose incidents the sweep resolves when the signal is gone. */
const SWEPT_SOURCES = new Set<IncidentSource>(['service-gap', 'approval-backlog', 'persistence', 'coordination', 'knowledge']);
/** Failed and retrying runs the sweep re-reads (newest first): catches a settle the hook missed. */
const RUN_SCAN_WINDOW = 50;

export interface IncidentSweepDeps {
  ledger: IncidentLedger;
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  logger: Logger;
  serviceGaps: () => ServiceGapSignal[];
  approvalBacklog?: ApprovalBacklogThresholds;
  /** Staleness and contradictions of the knowledge index (unset: no knowledge source). */
  knowledgeHealth?: () => Promise<KnowledgeHealth>;
  /** Re-reads the runs of an incident's unsettled remediation tasks. */
  syncTasks: (incidentId: string) => Promise<void>;
  /** Lets the policies act on one incident. */
  runPolicies: (incidentId: string) => Promise<unknown>;
}

/** The sweep of derived sources and open incidents (see `sweep` below and docs/incidents.md). */
export function createIncidentSweep(deps: IncidentSweepDeps): () => Promise<void> {
  const { ledger, store, clock, logger } = deps;

  async function derivedSignals(): Promise<IncidentSignal[]> {
    const signals: IncidentSignal[] = deps.serviceGaps().map(serviceGapSignalOf);
    const held = await store.listRuns({ queueState: 'held', includeInternal: true, limit: 1, order: 'oldest' });
    const oldest = held.items[0];
    const backlog = approvalBacklogSignal(held.total, oldest?.approval.requestedAt ?? oldest?.createdAt ?? null, clock.now(), deps.approvalBacklog ?? DEFAULT_APPROVAL_BACKLOG);
    if (backlog) signals.push(backlog);
    const storeSignal = stateStoreSignal(await store.health({ counts: false }));
    if (storeSignal) signals.push(storeSignal);
    const coordination = coordinationSignal(await deps.coordination.status());
    if (coordination) signals.push(coordination);
    if (deps.knowledgeHealth) signals.push(...knowledgeSignals(await deps.knowledgeHealth()));
    return signals;
  }

  /**
   * A run lineage's incident clears when the run itself succeeded after all, or when a later run
   * of the same type succeeded (the lane works again).
   */
  async function resolveRecoveredRun(record: IncidentRecord): Promise<void> {
    const run = await store.getRun(record.fingerprint.slice(Fingerprints.run('').length));
    if (!run) return;
    if (run.status === 'success') {
      await ledger.resolveSignal(record.fingerprint, `run ${run.runId} succeeded on attempt ${run.attempt}`, 'incident-sweep');
      return;
    }
    const newest = (await store.listRuns({ type: run.type, status: 'success', includeInternal: true, limit: 1 })).items[0];
    if (newest && newest.createdAt > (run.finishedAt ?? run.updatedAt)) {
      await ledger.resolveSignal(record.fingerprint, `a later ${run.type} run (${newest.runId}) succeeded`, 'incident-sweep');
    }
  }

  /**
   * One sweep: reports the derived signals present now and resolves the swept incidents whose
   * signal is gone; re-reads recent failed and retrying runs; then lets the policies act on every
   * open incident (owner, remediation, retry, verifier, escalation on SLA breach).
   */
  async function sweep(): Promise<void> {
    const existing = new Map((await ledger.all()).map((r) => [r.fingerprint, r]));
    const present = await derivedSignals();
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
