import type { AppConfig } from '../config/types.js';

/**
 * The timeout of one worker run, most specific first: the request, the operator's per-lane
 * setting, the agent's own manifest, then the service-wide default.
 */
export function resolveWorkerTimeout(
  requestTimeoutMs: number | undefined,
  taskType: string,
  config: Pick<AppConfig, 'laneTimeoutsMs' | 'workerTimeoutMs'>,
  manifestTimeoutMs: number | undefined,
): number {
  return requestTimeoutMs ?? config.laneTimeoutsMs[taskType] ?? manifestTimeoutMs ?? config.workerTimeoutMs;
}
