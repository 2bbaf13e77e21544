import { getHeapStatistics } from 'node:v8';
import type { TaskHandler } from '../../runtime/handler-types.js';
import type { TaskRecord } from '../../domain/orchestrator-state.js';

/** Above this many waiting runs the service is falling behind its work. */
export const QUEUE_DEPTH_DEGRADED = 100;
/** Share of the V8 heap limit in use above which the process is close to running out of memory. */
export const HEAP_USE_DEGRADED = 0.9;
/** Errors among the most recent task-history entries that mark the service as degraded. */
const RECENT_WINDOW = 10;
const RECENT_ERRORS_DEGRADED = 5;

/** Reasons the service is degraded; empty when healthy. */
export function degradedReasons(queueDepth: number, heapUseRatio: number, history: TaskRecord[]): string[] {
  const reasons: string[] = [];
  if (queueDepth >= QUEUE_DEPTH_DEGRADED) reasons.push(`queue depth ${queueDepth} ≥ ${QUEUE_DEPTH_DEGRADED}`);
  if (heapUseRatio >= HEAP_USE_DEGRADED) reasons.push(`heap use ${Math.round(heapUseRatio * 100)}% of its limit`);
  const recent = history.slice(-RECENT_WINDOW);
  const errors = recent.filter((r) => r.status === 'error').length;
  if (errors >= RECENT_ERRORS_DEGRADED) reasons.push(`${errors} of the last ${recent.length} tasks failed`);
  return reasons;
}

export interface HeartbeatContext {
  /** Process start time (for uptime). */
  serviceStartedAt: Date;
  /** Runs waiting in the queue right now (ready + held). */
  queueDepth: () => Promise<number>;
}

/** heartbeat: a cheap liveness sample every 5 minutes (scheduler), visible with includeInternal. */
export const heartbeat: TaskHandler<HeartbeatContext> = async (state, context, input) => {
  const uptime = Math.max(0, Math.floor((input.clock.now().getTime() - context.serviceStartedAt.getTime()) / 1000));
  const memoryUsageMb = Math.round((process.memoryUsage().rss / (1024 * 1024)) * 10) / 10;
  const taskQueueDepth = await context.queueDepth();
  const heap = getHeapStatistics();
  const reasons = degradedReasons(taskQueueDepth, heap.used_heap_size / heap.heap_size_limit, state.taskHistory);
  return {
    status: 'completed',
    result: {
      uptime,
      memoryUsageMb,
      taskQueueDepth,
      healthStatus: reasons.length === 0 ? 'healthy' : 'degraded',
      ...(reasons.length > 0 ? { degradedReasons: reasons } : {}),
    },
  };
};
