import { createServer } from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventChannelObserver } from './events/event-channel.js';
import { createServiceRunMetrics, type ServiceRunMetrics } from './metrics/service-run-metrics.js';
import type { RunMetricLabels } from './metrics/run-metrics.js';
import { RequestMetrics } from './request-metrics.js';

export interface QueueDepth {
  ready: number;
  held: number;
  running: number;
}

export interface Metrics {
  readonly registry: Registry;
  /** Records one finished HTTP request; `route` is the route pattern (`unmatched` for unknown paths). */
  observeRequest(method: string, route: string, statusCode: number, durationSeconds: number): void;
  /** Where the queue-depth gauge reads from; evaluated at every scrape, so it is never stale. */
  setQueueDepthSource(source: () => Promise<QueueDepth>): void;
  /**
   * The event channel's metrics, registered on the first call: only an instance that shares its
   * store with others (PostgreSQL) has a channel, and the others show none rather than a zero.
   */
  eventChannelObserver(): EventChannelObserver;
  /**
   * The run, approval, incident and model metrics (src/metrics/, docs/metrics.md), registered on
   * the first call with the label values the service knows (its task types, its models); later
   * calls answer the same ones.
   */
  runMetrics(labels: RunMetricLabels): ServiceRunMetrics;
}

/** The service's Prometheus registry: process defaults, HTTP request counters and timings, queue depth, and the run metrics once asked for. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // Recorded per request in plain maps, read by the registry at scrape time (request-metrics.ts).
  const requests = new RequestMetrics();
  requests.registerOn(registry);

  let queueDepthSource: (() => Promise<QueueDepth>) | null = null;
  new Gauge({
    name: 'orchestrator_queue_depth',
    help: 'Runs by queue state: ready (waiting to run), held (awaiting approval), running',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      if (queueDepthSource === null) return;
      const depth = await queueDepthSource();
      this.set({ state: 'ready' }, depth.ready);
      this.set({ state: 'held' }, depth.held);
      this.set({ state: 'running' }, depth.running);
    },
  });

  let channelObserver: EventChannelObserver | null = null;
  let runMetrics: ServiceRunMetrics | null = null;

  return {
    registry,
    runMetrics(labels) {
      runMetrics ??= createServiceRunMetrics(registry, labels);
      return runMetrics;
    },
    eventChannelObserver() {
      channelObserver ??= eventChannelMetrics(registry);
      return channelObserver;
    },
    observeRequest(method, route, statusCode, durationSeconds) {
      requests.observe(method, route, statusCode, durationSeconds);
    },
    setQueueDepthSource(source) {
      queueDepthSource = source;
    },
  };
}

/** Counters of the announcements between instances, and whether this one is listening. */
function eventChannelMetrics(registry: Registry): EventChannelObserver {
  const announcements = new Counter({
    name: 'orchestrator_event_channel_announcements_total',
    help: 'Announcements of committed run events between instances: sent by this one, failed to send, received from others',
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  const losses = new Counter({
    name: 'orchestrator_event_channel_connection_losses_total',
    help: 'Times the event channel lost its listening connection or failed to open it (it retries with backoff)',
    registers: [registry],
  });
  const connected = new Gauge({
    name: 'orchestrator_event_channel_connected',
    help: '1 while the event channel listens for other instances, 0 while it reconnects',
    registers: [registry],
  });
  // Every series from the start, so a rate over them is defined before the first event.
  for (const direction of ['sent', 'failed', 'received']) announcements.inc({ direction }, 0);
  return {
    announced: (sent) => announcements.inc({ direction: sent ? 'sent' : 'failed' }),
    heard: () => announcements.inc({ direction: 'received' }),
    connected(up) {
      connected.set(up ? 1 : 0);
      if (!up) losses.inc();
    },
  };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A separate plain HTTP listener for Prometheus, so scraping never competes with the API's auth,
 * rate limits or CORS. It answers GET /metrics and 404 for anything else.
 */
export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
        server.emit('collectError', err);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  return {
    port: boundPort,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
