import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS, RequestMetrics } from '../../src/request-metrics.js';

/** The same observations through prom-client's own Counter and Histogram: the reference output. */
function referenceRegistry() {
  const registry = new Registry();
  const counter = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to sending the response, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [registry],
  });
  return {
    registry,
    observe(method: string, route: string, status: number, seconds: number) {
      counter.inc({ method, route, status_code: String(status) });
      histogram.observe({ method, route }, seconds);
    },
  };
}

const sortedLines = (text: string) => text.split('\n').filter((l) => l !== '').sort();

describe('RequestMetrics', () => {
  it('exposes exactly what the Counter and Histogram of prom-client would for the same requests', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics();
    metrics.registerOn(registry);
    const reference = referenceRegistry();
    const methods = ['GET', 'POST'];
    const routes = ['/health', '/api/tasks/runs/:runId', 'unmatched', 'a "quoted" \\ route\nwith a newline'];
    const statuses = [200, 202, 404, 429, 500];
    // Durations on and around every bound (a value equal to a bound belongs to that bucket), tiny,
    // huge and negative ones: a deterministic sequence, so a failure reproduces.
    const durations = [0, -0.001, 1e-9, 20, 1e6, ...REQUEST_DURATION_BUCKETS.flatMap((b) => [b, b * 0.999, b * 1.001])];
    let n = 0;
    for (const method of methods) {
      for (const route of routes) {
        for (const status of statuses) {
          for (let i = 0; i < 3; i++) {
            const seconds = durations[n++ % durations.length]!;
            metrics.observe(method, route, status, seconds);
            reference.observe(method, route, status, seconds);
          }
        }
      }
    }
    const ours = await registry.metrics();
    expect(sortedLines(ours)).toEqual(sortedLines(await reference.registry.metrics()));
    expect(ours).toContain('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health"} 15');
    expect(await registry.getMetricsAsJSON()).toHaveLength(2);
  });

  it('counts a request whose duration is not a number, without touching the histogram', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics();
    metrics.registerOn(registry);
    metrics.observe('GET', '/health', 200, 0.002);
    metrics.observe('GET', '/health', 200, Number.NaN);
    const text = await registry.metrics();
    expect(text).toContain('http_requests_total{method="GET",route="/health",status_code="200"} 2');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/health"} 1');
    expect(text).toContain('http_request_duration_seconds_sum{method="GET",route="/health"} 0.002');
  });

  it('starts over when the registry resets its metrics', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics();
    metrics.registerOn(registry);
    metrics.observe('GET', '/health', 200, 0.001);
    registry.resetMetrics();
    const text = await registry.metrics();
    expect(text).not.toContain('route="/health"');
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  });
});
