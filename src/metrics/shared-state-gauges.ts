import { Gauge, type Registry } from 'prom-client';
import { INCIDENT_SEVERITIES } from '../incidents/read-port.js';
import { BoundedLabel } from './bounded-label.js';
import { MAX_TYPE_LABEL_VALUES } from './run-metrics.js';

/**
 * What the gauges of shared state show: read from the store every instance shares, never from
 * this process's memory, so each instance reports the same figures (aggregate them with `max`,
 * not `sum`).
 */
export interface SharedStateReading {
  /** Runs in status `running`, by task type, whichever instance runs them. */
  executingByType: Record<string, number>;
  /** Held runs waiting for an approval decision. */
  approvalsPending: number;
  /** When the oldest pending approval was requested; null when none is pending. */
  oldestApprovalRequestedAt: string | null;
  /** Incidents not resolved, by severity. */
  incidentsOpenBySeverity: Record<string, number>;
  /** Each limit bucket of config `limits` (a bounded set: the config names them): its running and waiting runs, its oldest wait. */
  buckets: Array<{ name: string; running: number; waiting: number; oldestWaitSeconds: number }>;
}

export interface SharedStateSource {
  read(): Promise<SharedStateReading>;
  now(): Date;
}

/** How long one reading serves scrapes: several scrapers (or a scraper and a person) read the store once. */
export const SHARED_STATE_TTL_MS = 5_000;

/**
 * One series per value of a bounded label, counts of names outside it summed under `other`, and
 * every value at zero too: a type that stopped running shows 0, not an absent series.
 */
function setEveryValue<L extends string>(gauge: Gauge<L>, name: L, label: BoundedLabel, counts: Record<string, number>): void {
  const byValue = new Map<string, number>(label.values().map((value) => [value, 0]));
  for (const [key, count] of Object.entries(counts)) {
    const value = label.of(key);
    byValue.set(value, (byValue.get(value) ?? 0) + count);
  }
  for (const [value, count] of byValue) gauge.set({ [name]: value } as Partial<Record<L, string>>, count);
}

/**
 * The gauges of shared state, read at scrape time through one bounded reading of the store,
 * reused for SHARED_STATE_TTL_MS and shared by concurrent scrapes. A reading that fails shows no
 * figure rather than failing the scrape or showing a stale or zero one as current: the labelled
 * gauges have no series for that scrape, the others read NaN (an alert comparing them stays quiet,
 * and `absent()` or `isNaN`-style checks can catch it).
 */
export function registerSharedStateGauges(registry: Registry, types: readonly string[], ttlMs = SHARED_STATE_TTL_MS) {
  const type = new BoundedLabel(types);
  const severity = new BoundedLabel(INCIDENT_SEVERITIES);
  let source: SharedStateSource | null = null;
  let cached: { at: number; reading: Promise<SharedStateReading | null> } | null = null;

  function reading(): Promise<SharedStateReading | null> {
    if (source === null) return Promise.resolve(null);
    const at = Date.now();
    if (cached === null || at - cached.at >= ttlMs) {
      cached = { at, reading: source.read().catch(() => null) };
    }
    return cached.reading;
  }

  const registers = [registry];
  // One series per value of a bounded label (setEveryValue); none while the store cannot be read.
  const labelledGauge = <L extends string>(name: string, help: string, labelName: L, label: BoundedLabel, counts: (now: SharedStateReading) => Record<string, number>) =>
    new Gauge<L>({
      name,
      help,
      labelNames: [labelName],
      registers,
      async collect() {
        this.reset();
        const now = await reading();
        if (now !== null) setEveryValue(this, labelName, label, counts(now));
      },
    });
  labelledGauge('orchestrator_runs_executing', 'Runs executing now (status running) across every instance sharing the store, by task type', 'type', type, (now) => now.executingByType);
  new Gauge({
    name: 'orchestrator_approvals_pending',
    help: 'Held runs waiting for an approval decision, across every instance sharing the store',
    registers,
    async collect() {
      this.reset();
      const now = await reading();
      this.set(now === null ? NaN : now.approvalsPending);
    },
  });
  new Gauge({
    name: 'orchestrator_approval_oldest_pending_age_seconds',
    help: 'Age of the oldest pending approval (since it was requested); 0 when none is pending',
    registers,
    async collect() {
      this.reset();
      const now = await reading();
      if (now === null || source === null) {
        this.set(NaN);
        return;
      }
      const requested = now.oldestApprovalRequestedAt === null ? NaN : Date.parse(now.oldestApprovalRequestedAt);
      this.set(Number.isFinite(requested) ? Math.max(0, (source.now().getTime() - requested) / 1000) : 0);
    },
  });
  labelledGauge('orchestrator_incidents_open', 'Incidents not resolved (active or watching), by severity', 'severity', severity, (now) => now.incidentsOpenBySeverity);

  // One series per configured limit bucket (docs/queue.md); the names come from config, so bounded.
  const bucketGauge = (name: string, help: string, value: (bucket: SharedStateReading['buckets'][number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['bucket'] as const,
      registers,
      async collect() {
        this.reset();
        const now = await reading();
        for (const bucket of now?.buckets ?? []) this.set({ bucket: bucket.name }, value(bucket));
      },
    });
  bucketGauge('orchestrator_queue_bucket_running', 'Runs running that a limit bucket matches, across every instance sharing the store', (b) => b.running);
  bucketGauge('orchestrator_queue_bucket_waiting', 'Ready runs waiting that a limit bucket matches, across every instance sharing the store', (b) => b.waiting);
  bucketGauge('orchestrator_queue_bucket_oldest_wait_seconds', 'How long the oldest ready run a limit bucket matches has waited; 0 when none waits', (b) => b.oldestWaitSeconds);

  return {
    /** Where the gauges read from; until it is set they have no series. */
    readFrom(next: SharedStateSource): void {
      source = next;
      cached = null;
    },
    /** Task types a reload added: their own series from the next scrape (within the label's cap). */
    knowTypes(types: readonly string[]): void {
      type.admit(types, MAX_TYPE_LABEL_VALUES);
    },
  };
}

export type SharedStateGauges = ReturnType<typeof registerSharedStateGauges>;
