import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/clock.js';
import type { AppConfig } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { Coordination } from '../../src/coordination/types.js';
import { createCacheInvalidator } from '../../src/coordination/cache-invalidator.js';
import { buildRouteTable } from '../../src/http/route-table.js';
import type { RouteSpec } from '../../src/http/route-spec.js';
import { authRoutes } from '../../src/http/routes/auth.js';
import { healthRoutes } from '../../src/http/routes/health.js';
import { openapiRoutes } from '../../src/http/routes/openapi.js';
import { persistenceHealthRoutes } from '../../src/http/routes/persistence.js';
import { buildServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logging.js';
import { createMetrics, startMetricsServer, type Metrics, type MetricsServer } from '../../src/metrics.js';
import type { StoreHealth } from '../../src/store/types.js';
import { tempDir, testConfig, writeConfigFile } from './config.js';
import { syntheticRoutes } from './synthetic-routes.js';

export interface HarnessOptions {
  /** Written as the JSON config file (ORCHESTRATOR_CONFIG): the way to set rateLimits, cache, CORS lists. */
  configFile?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Defaults to a fresh in-memory coordination. */
  coordination?: Coordination;
  /** Log level of the captured logger (default `silent`). */
  logLevel?: string;
  /** Also start the metrics listener. */
  withMetricsServer?: boolean;
  storeHealth?: StoreHealth;
  /** The operator console build directory to serve (default: the package's console/dist). */
  consoleDir?: string;
}

export interface Harness {
  url: string;
  app: FastifyInstance;
  config: AppConfig;
  coordination: Coordination;
  metrics: Metrics;
  metricsServer: MetricsServer | null;
  routes: RouteSpec[];
  /** Every log line the service wrote, as text. */
  logLines: string[];
  close(): Promise<void>;
}

const HEALTHY_STORE: StoreHealth = {
  status: 'ok',
  target: '/tmp/orchestrator-state.json',
  detail: 'journal and snapshot readable',
  collections: { runs: 3 },
};

/** Builds the real HTTP server (real routes plus synthetic ones) from testConfig() and listens on 127.0.0.1:0. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const baseDir = tempDir('orch-http-');
  const env: Record<string, string> = { ...(options.env ?? {}) };
  if (options.configFile) env.ORCHESTRATOR_CONFIG = writeConfigFile(baseDir, options.configFile);
  const config = testConfig(env, baseDir);

  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const logger = createLogger(options.logLevel ?? 'silent', sink);
  const coordination =
    options.coordination ?? new MemoryCoordination({ cacheMaxEntries: config.cache.maxEntries, cacheMaxBytes: config.cache.maxBytes });
  const metrics = createMetrics();
  const invalidator = createCacheInvalidator(coordination);

  let metricsServer: MetricsServer | null = null;
  let routes: RouteSpec[] = [];
  routes = buildRouteTable([
    healthRoutes({ config, clock: systemClock, metricsPort: () => metricsServer?.port ?? null }),
    authRoutes(),
    openapiRoutes(() => routes, { title: 'Task orchestration service (test)', version: '0.0.0-test' }),
    persistenceHealthRoutes({
      storeHealth: async () => options.storeHealth ?? HEALTHY_STORE,
      storeKind: () => 'file',
      coordination,
    }),
    syntheticRoutes(invalidator),
  ]);
  const app = await buildServer({ config, coordination, logger, metrics, consoleDir: options.consoleDir }, routes);
  await app.listen({ host: '127.0.0.1', port: 0 });
  if (options.withMetricsServer) metricsServer = await startMetricsServer(metrics, '127.0.0.1', 0);
  const address = app.server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${address.port}`,
    app,
    config,
    coordination,
    metrics,
    metricsServer,
    routes,
    logLines,
    async close() {
      await app.close();
      await metricsServer?.close();
      if (!options.coordination) await coordination.close();
    },
  };
}
