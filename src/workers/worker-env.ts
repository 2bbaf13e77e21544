import type { AppConfig } from '../config/types.js';

/**
 * The only parent variables a worker sees. Everything else (API keys, WEBHOOK_SECRET,
 * DATABASE_URL, KV_STORE_URL, provider keys, NODE_OPTIONS) stays in the orchestrator: a worker
 * runs code against workspace content and must not be able to read or leak credentials.
 */
export const WORKER_ENV_ALLOWLIST = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_ENV'] as const;

/**
 * Builds a worker's environment: the allowlisted parent variables that are set, the state and
 * config overrides the worker must inherit (only when the operator set them, so an agent
 * otherwise falls back to the orchestrator's defaults), and the run's own coordinates.
 */
export function buildWorkerEnv(
  parentEnv: NodeJS.ProcessEnv,
  config: Pick<AppConfig, 'stateOverridden' | 'stateTarget' | 'configFile' | 'workspaceRoot'>,
  runId: string,
  /** The lane being run: an agent serving several lanes (system-monitor-agent) dispatches on it. */
  taskType?: string,
  /** The orchestrator's pid: a worker that finds another parent at start-up was orphaned before it could watch. */
  orchestratorPid: number = process.pid,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of WORKER_ENV_ALLOWLIST) {
    const value = parentEnv[name];
    if (value !== undefined) env[name] = value;
  }
  if (config.stateOverridden) env.STATE_FILE = config.stateTarget;
  if (config.configFile !== null) env.ORCHESTRATOR_CONFIG = config.configFile;
  env.ORCHESTRATOR_WORKSPACE_ROOT = config.workspaceRoot;
  env.ORCHESTRATOR_RUN_ID = runId;
  env.ORCHESTRATOR_PID = String(orchestratorPid);
  if (taskType !== undefined) env.ORCHESTRATOR_TASK_TYPE = taskType;
  return env;
}
