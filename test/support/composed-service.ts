import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { composeService, type ServiceInfrastructure } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import type { AppConfig } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { buildServer } from '../../src/http/server.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir, testConfig, writeConfigFile } from './config.js';
import { RAISED_RATE_LIMITS } from './runtime-service.js';
import { STAND_IN_AGENTS_DIR } from './paths.js';

/** The service composed in this process over a file store, its HTTP server listening on 127.0.0.1. */
export interface ComposedService {
  url: string;
  server: FastifyInstance;
  service: ReturnType<typeof composeService>;
  store: StateStore;
  config: AppConfig;
  /** The service's metrics (the run metrics are measured only with `runMetrics: true`). */
  metrics: Metrics;
  close(): Promise<void>;
}

/**
 * Composes the whole service in this process (the real route table, admission and runtime) with
 * the stand-in agents, the scheduler off and raised rate limits, and listens on a loopback port.
 * `runtime: true` also starts the runner, so admitted runs execute (workers are spawned in their
 * own process groups by the service's spawner). `config` adds config-file keys, `env` variables;
 * `logger` replaces the silent one (a test that reads what the service logs).
 */
export async function startComposedService(
  options: {
    config?: Record<string, unknown>;
    env?: Record<string, string>;
    runtime?: boolean;
    extraTaskTypes?: ServiceInfrastructure['extraTaskTypes'];
    /** Measure runs (src/metrics/): `metrics` then carries the run metrics. */
    runMetrics?: boolean;
    logger?: pino.Logger;
  } = {},
): Promise<ComposedService> {
  const dir = tempDir('orch-composed-');
  const file = writeConfigFile(dir, { agentsDir: STAND_IN_AGENTS_DIR, schedulerEnabled: false, docWatcher: false, rateLimits: RAISED_RATE_LIMITS, ...options.config });
  const config = testConfig({ ORCHESTRATOR_CONFIG: file, ...options.env }, dir);
  const logger = options.logger ?? pino({ level: 'silent' });
  const store = openStateStore(config.stateTarget, { logger });
  await store.open();
  const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  const metrics = createMetrics();
  const service = composeService({
    config,
    logger,
    clock: systemClock,
    store,
    coordination,
    metricsPort: null,
    extraTaskTypes: options.extraTaskTypes,
    ...(options.runMetrics ? { runMetrics: (labels: Parameters<Metrics['runMetrics']>[0]) => metrics.runMetrics(labels) } : {}),
  });
  const server = await buildServer(
    { config, coordination, logger, metrics, tokens: service.tokens, approvalLinks: service.approvalLinks, scopeLookups: service.scopeLookups },
    service.routes,
  );
  await server.listen({ host: '127.0.0.1', port: 0 });
  if (options.runtime) await service.runtime.start();
  const { port } = server.server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    service,
    store,
    config,
    metrics,
    async close() {
      await service.events.close();
      await server.close();
      if (options.runtime) await service.runtime.stop(2000);
      await service.models.channel.close();
      await store.close();
      await coordination.close();
    },
  };
}

/**
 * One composed service for the enclosing describe block: started before its tests, closed after
 * them. Returns a getter, since the service exists only once the block's tests begin.
 */
export function composedServiceForSuite(options: Parameters<typeof startComposedService>[0] = {}): () => ComposedService {
  let svc: ComposedService | undefined;
  beforeAll(async () => {
    svc = await startComposedService(options);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });
  return () => {
    if (svc === undefined) throw new Error('the composed service is used before its suite started it');
    return svc;
  };
}
