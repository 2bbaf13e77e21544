import type { IncidentRollup } from '../incidents/read-port.js';
import type { RunCounts } from '../store/types.js';
import { getCatalogEntry } from '../runtime/catalog.js';
import type { RunRecord } from '../domain/run-record.js';
import type { TaskRecord } from '../domain/orchestrator-state.js';
import type { AccountingRollup } from './accounting-rollup.js';
import type { PersistenceView } from './persistence-view.js';
import type { Maybe } from './read-ports.js';

export const RECENT_TASKS = 10;
export const MAX_PRESSURE_TYPES = 20;
/** Retrying runs read to find the next retry: the scanner's own page size. */
export const RETRY_SCAN_LIMIT = 200;
const MAX_MESSAGE_CHARS = 200;

export interface DashboardInput {
  now: Date;
  fastStart: boolean;
  serviceStartedAt: Date;
  counts: RunCounts;
  /** Retrying runs, oldest first, at most RETRY_SCAN_LIMIT. */
  retrying: readonly RunRecord[];
  repairs: Maybe<{ activeCount: number; verifiedCount: number; failedCount: number }>;
  accounting: AccountingRollup;
  incidents: IncidentRollup;
  /** OrchestratorState.taskHistory (oldest first, the last 50). */
  taskHistory: readonly TaskRecord[];
  persistence: PersistenceView;
}

const clip = (text: string) => (text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text);

/** Per-type queue pressure: types with pending or running runs, heaviest first. */
export function queuePressure(counts: RunCounts) {
  return Object.entries(counts.byType)
    .map(([type, byStatus]) => {
      const entry = getCatalogEntry(type);
      const queuedCount = byStatus.pending ?? 0;
      const processingCount = byStatus.running ?? 0;
      return {
        type,
        label: entry?.label ?? type,
        source: entry ? (entry.internalOnly ? 'internal' : entry.executor) : 'unknown',
        queuedCount,
        processingCount,
        totalCount: queuedCount + processingCount,
      };
    })
    .filter((p) => p.totalCount > 0)
    .sort((a, b) => b.totalCount - a.totalCount || a.type.localeCompare(b.type))
    .slice(0, MAX_PRESSURE_TYPES);
}

function messageOf(record: TaskRecord): string {
  if (record.error) return clip(record.error);
  const result = record.result;
  if (result && typeof result === 'object') {
    const r = result as Record<string, unknown>;
    for (const key of ['operatorSummary', 'summary', 'message']) if (typeof r[key] === 'string') return clip(r[key] as string);
  }
  return `${record.type} ${record.status} in ${record.durationMs} ms`;
}

/** Newest first: when each task was handled, its type, outcome and a one-line message. */
export function recentTasks(history: readonly TaskRecord[]) {
  return history
    .slice(-RECENT_TASKS)
    .reverse()
    .map((t) => ({ handledAt: t.timestamp, type: t.type, result: t.status, message: messageOf(t) }));
}

/** The earliest pending automatic retry among the retrying runs read. */
export function nextRetryAt(retrying: readonly RunRecord[]): string | null {
  const times = retrying.map((r) => r.retry?.nextRetryAt).filter((t): t is string => typeof t === 'string');
  return times.length === 0 ? null : times.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
}

/**
 * The dashboard's lean aggregate. It is a view for a console page, not authoritative health
 * (that is GET /api/health/extended).
 */
export function composeDashboard(input: DashboardInput) {
  const repairs = input.repairs;
  return {
    generatedAt: input.now.toISOString(),
    authoritative: false,
    health: {
      fastStartMode: input.fastStart,
      uptimeSeconds: Math.max(0, Math.floor((input.now.getTime() - input.serviceStartedAt.getTime()) / 1000)),
      authoritativeHealth: '/api/health/extended',
    },
    queue: {
      queued: input.counts.ready,
      processing: input.counts.byStatus.running,
      held: input.counts.held,
      pressure: queuePressure(input.counts),
    },
    approvals: { pendingCount: input.counts.held },
    selfHealing: {
      summary:
        repairs.unavailableReason === null
          ? {
              totalCount: repairs.activeCount + repairs.verifiedCount + repairs.failedCount,
              activeCount: repairs.activeCount,
              verifiedCount: repairs.verifiedCount,
              failedCount: repairs.failedCount,
              unavailableReason: null,
            }
          : { totalCount: null, activeCount: null, verifiedCount: null, failedCount: null, unavailableReason: repairs.unavailableReason },
    },
    governance: {
      taskRetryRecoveries: { count: input.counts.byStatus.retrying, nextRetryAt: nextRetryAt(input.retrying) },
    },
    accounting: input.accounting,
    incidents: input.incidents,
    recentTasks: recentTasks(input.taskHistory),
    persistence: {
      status: input.persistence.status,
      mode: input.persistence.database.mode,
      coordination: input.persistence.coordination.store,
      coordinationStatus: input.persistence.coordination.status,
    },
  };
}

export type DashboardOverview = ReturnType<typeof composeDashboard>;
