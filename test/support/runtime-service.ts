import { tempDir } from './config.js';
import { apiClient } from './http.js';
import { STAND_IN_AGENTS_DIR } from './paths.js';
import { startService, type ServiceProcess } from './service-process.js';

/** Limits high enough that load in a test never meets a 429. */
const RAISED = { max: 10_000_000, windowSeconds: 60 };
export const RAISED_RATE_LIMITS = { 'operator-write': RAISED, 'viewer-read': RAISED, 'abuse-guard': RAISED };

export interface RuntimeService {
  service: ServiceProcess;
  api: ReturnType<typeof apiClient>;
  base: string;
}

/**
 * Starts the built service with the stand-in agents (STAND_IN_AGENTS_DIR), cron
 * jobs off and raised rate limits; `config` adds or overrides keys. `base` may name an existing directory to restart on its state.
 * `env` adds or overrides variables of the service's environment (its keys, PATH).
 */
export async function startRuntimeService(config: Record<string, unknown> = {}, base: string = tempDir(), env: Record<string, string> = {}): Promise<RuntimeService> {
  const service = await startService({
    baseDir: base,
    config: { agentsDir: STAND_IN_AGENTS_DIR, schedulerEnabled: false, rateLimits: RAISED_RATE_LIMITS, ...config },
    env,
  });
  return { service, api: apiClient(service.url), base };
}
