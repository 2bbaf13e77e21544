import type { ServiceGapSignal } from '../agents/service-probe.js';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import {
  approvalBacklogSignal,
  coordinationSignal,
  DEFAULT_APPROVAL_BACKLOG,
  knowledgeSignals,
  serviceGapSignalOf,
  stateStoreSignal,
  type ApprovalBacklogThresholds,
  type KnowledgeHealth,
} from './sources.js';
import type { IncidentSignal, IncidentSource } from './types.js';

/** Sources read again by every sweep: their incidents clear when the signal is no longer derived. */
export const SWEPT_SOURCES: ReadonlySet<IncidentSource> = new Set<IncidentSource>(['service-gap', 'approval-backlog', 'persistence', 'coordination', 'knowledge']);

export interface DerivedSignalDeps {
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  serviceGaps: () => ServiceGapSignal[];
  approvalBacklog?: ApprovalBacklogThresholds;
  /** Staleness and contradictions of the knowledge index (unset: no knowledge source). */
  knowledgeHealth?: () => Promise<KnowledgeHealth>;
}

/**
 * The signals the service derives from its own state, as they stand now: service gaps, the
 * approval backlog, store and coordination health, knowledge staleness and contradictions. The
 * sweep reports them; a verification reads them to see whether an incident's signal has cleared.
 */
export function createDerivedSignals(deps: DerivedSignalDeps): () => Promise<IncidentSignal[]> {
  const { store, clock } = deps;
  return async () => {
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
  };
}
