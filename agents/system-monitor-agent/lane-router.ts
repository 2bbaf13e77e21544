import { defineLane, type WorkerLane } from '../../src/worker-sdk/lane-definition.js';
import { incidentTriage } from './incident-triage.js';
import { systemMonitor } from './system-monitor.js';

export const AGENT_LANES = ['system-monitor', 'incident-triage'] as const;
export type AgentLane = (typeof AGENT_LANES)[number];

/**
 * This agent serves two lanes from one entrypoint. The lane is taken from the service when it
 * names it (env ORCHESTRATOR_TASK_TYPE, or payload `__taskType`); otherwise from the payload's
 * documented shape: system-monitor is `{type}`, incident-triage is `{}`.
 */
export function laneOf(payload: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): AgentLane {
  const named = env.ORCHESTRATOR_TASK_TYPE ?? payload.__taskType;
  if (typeof named === 'string' && (AGENT_LANES as readonly string[]).includes(named)) return named as AgentLane;
  return typeof payload.type === 'string' ? 'system-monitor' : 'incident-triage';
}

const LANES: Readonly<Record<AgentLane, WorkerLane>> = {
  'system-monitor': defineLane('system-monitor', systemMonitor),
  'incident-triage': defineLane('incident-triage', incidentTriage),
};

/** The lane a payload goes to; the SDK then checks the payload against that lane's schema. */
export function systemMonitorAgent(payload: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): WorkerLane {
  return LANES[laneOf(payload, env)];
}
