import { describe, expect, it } from 'vitest';
import { degradedReasons, heartbeat } from '../../../src/lanes/heartbeat/handler.js';
import type { TaskRecord } from '../../../src/domain/orchestrator-state.js';
import { freshState, handlerInput } from '../../support/handlers.js';
import { fixedClock } from '../../support/clocks.js';

const record = (status: TaskRecord['status']): TaskRecord => ({ type: 'x', status, timestamp: '2024-05-01T00:00:00Z', durationMs: 1 });

describe('heartbeat handler', () => {
  it('reports uptime since service start, memory, queue depth and a healthy verdict', async () => {
    const input = handlerInput('heartbeat', {}, { clock: fixedClock('2024-05-01T12:00:00.000Z') });
    const context = { serviceStartedAt: new Date('2024-05-01T11:58:30.000Z'), queueDepth: async () => 3 };
    const outcome = await heartbeat(freshState(), context, input);
    expect(outcome.status).toBe('completed');
    const result = outcome.result as Record<string, unknown>;
    expect(result).toMatchObject({ uptime: 90, taskQueueDepth: 3, healthStatus: 'healthy' });
    expect(result.memoryUsageMb).toBeGreaterThan(0);
    expect(outcome.stateUpdate).toBeUndefined();
  });

  it('is degraded with its reasons when the queue backs up', async () => {
    const context = { serviceStartedAt: new Date('2024-05-01T11:00:00.000Z'), queueDepth: async () => 250 };
    const outcome = await heartbeat(freshState(), context, handlerInput('heartbeat'));
    expect(outcome.result).toMatchObject({ healthStatus: 'degraded', degradedReasons: [expect.stringContaining('queue depth 250')] });
  });

  it('counts recent task failures and heap pressure as degradation', () => {
    const history = [...Array(5).fill(record('completed')), ...Array(5).fill(record('error'))] as TaskRecord[];
    expect(degradedReasons(0, 0.2, history)).toEqual(['5 of the last 10 tasks failed']);
    expect(degradedReasons(0, 0.95, [])).toEqual(['heap use 95% of its limit']);
    expect(degradedReasons(0, 0.2, Array(20).fill(record('completed')) as TaskRecord[])).toEqual([]);
  });
});
