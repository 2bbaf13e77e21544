import type { Metric, Registry } from 'prom-client';

/** Upper bounds (seconds) of the request duration histogram's buckets. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Timing {
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative; the last slot is the +Inf bucket's own share. */
  perBucket: Float64Array;
}

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

interface ExportedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: ExportedValue[];
}

/** What a prom-client registry reads from a metric: a name, a `get()` of its values, a reset. */
interface RegistrableMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<ExportedMetric>;
  reset(): void;
}

/**
 * `http_requests_total` (method, route, status_code) and `http_request_duration_seconds`
 * (method, route), recorded in plain maps and read by the registry only when it is scraped.
 *
 * Why not prom-client's own Counter and Histogram: every request is recorded, and their
 * `inc`/`observe` check the label names, build a label object and hash it by sorted keys on
 * each call, about 2 µs of a 40 µs `GET /health`. Here a request costs three map lookups and a
 * bucket search. The registry still formats the exposition (escaping, the cumulative `le`
 * buckets, `+Inf`, `_sum`, `_count`), from the `get()` these objects answer, as it does for its
 * own metric classes.
 */
export class RequestMetrics {
  /** method → route → status code → count */
  private readonly counts = new Map<string, Map<string, Map<number, number>>>();
  /** method → route → timing */
  private readonly timings = new Map<string, Map<string, Timing>>();

  observe(method: string, route: string, statusCode: number, durationSeconds: number): void {
    let byRoute = this.counts.get(method);
    if (byRoute === undefined) this.counts.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (byStatus === undefined) byRoute.set(route, (byStatus = new Map()));
    byStatus.set(statusCode, (byStatus.get(statusCode) ?? 0) + 1);

    // A clock step backwards or a NaN must not poison the sum (prom-client refused those too).
    if (!Number.isFinite(durationSeconds)) return;
    let timingsByRoute = this.timings.get(method);
    if (timingsByRoute === undefined) this.timings.set(method, (timingsByRoute = new Map()));
    let timing = timingsByRoute.get(route);
    if (timing === undefined) {
      timing = { count: 0, sum: 0, perBucket: new Float64Array(REQUEST_DURATION_BUCKETS.length + 1) };
      timingsByRoute.set(route, timing);
    }
    timing.count += 1;
    timing.sum += durationSeconds;
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && durationSeconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket++;
    timing.perBucket[bucket]! += 1;
  }

  /** Adds both metrics to a registry; it then reads them at every scrape. */
  registerOn(registry: Registry): void {
    // The registry accepts any object with its metric classes' read interface (name, get, reset);
    // its type names only those classes.
    registry.registerMetric(this.requestsMetric() as unknown as Metric);
    registry.registerMetric(this.durationMetric() as unknown as Metric);
  }

  private requestsMetric(): RegistrableMetric {
    return registrable(
      'http_requests_total',
      'counter',
      'HTTP requests answered, by method, route pattern and status code',
      () => {
        const values: ExportedValue[] = [];
        for (const [method, byRoute] of this.counts) {
          for (const [route, byStatus] of byRoute) {
            for (const [status, count] of byStatus) values.push({ labels: { method, route, status_code: String(status) }, value: count });
          }
        }
        return values;
      },
      () => this.counts.clear(),
    );
  }

  private durationMetric(): RegistrableMetric {
    const name = 'http_request_duration_seconds';
    return registrable(
      name,
      'histogram',
      'Time from receiving an HTTP request to sending the response, by method and route pattern',
      () => {
        const values: ExportedValue[] = [];
        for (const [method, byRoute] of this.timings) {
          for (const [route, timing] of byRoute) {
            let cumulative = 0;
            REQUEST_DURATION_BUCKETS.forEach((le, i) => {
              cumulative += timing.perBucket[i]!;
              values.push({ labels: { le, method, route }, value: cumulative, metricName: `${name}_bucket` });
            });
            values.push(
              { labels: { le: '+Inf', method, route }, value: timing.count, metricName: `${name}_bucket` },
              { labels: { method, route }, value: timing.sum, metricName: `${name}_sum` },
              { labels: { method, route }, value: timing.count, metricName: `${name}_count` },
            );
          }
        }
        return values;
      },
      () => this.timings.clear(),
    );
  }
}

function registrable(name: string, type: 'counter' | 'histogram', help: string, values: () => ExportedValue[], reset: () => void): RegistrableMetric {
  const meta = { name, help, type, aggregator: 'sum' } as const;
  return { ...meta, get: async () => ({ ...meta, values: values() }), reset };
}
