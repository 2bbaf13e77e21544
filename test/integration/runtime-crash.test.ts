import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { executionProblems, readExecutionLog, waitForOrphansToExit } from '../support/execution-log.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { startRuntimeService } from '../support/runtime-service.js';


for (const target of ['./state/orchestrator-state.json', 'sql:./state/orchestrator.sqlite']) {
  describe(`kill -9 and restart on ${target.startsWith('sql:') ? 'SQLite' : 'the JSON file'}`, () => {
    it('keeps every admitted run, finishes each, and never runs one twice at once', async () => {
      const base = tempDir();
      const log = join(base, 'executions.jsonl');
      writeFileSync(log, '');
      const config = { stateFile: target, concurrency: 3 };
      const { service: first, api } = await startRuntimeService(config, base);
      const admitted: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        const res = await api.trigger('summarize-content', { content: `item ${i}`, log, sleepMs: 250, idempotencyKey: `crash-${i}` });
        expect(res.status).toBe(202);
        admitted.push(res.body.runId);
      }
      await waitFor(async () => (readExecutionLog(log).filter((r) => r.event === 'start').length >= 3 ? true : undefined));

      // Kill only the service process, as a crash would: its workers must notice and stop.
      process.kill(first.child.pid!, 'SIGKILL');
      const killedAt = Date.now();
      await first.kill();
      const deathTimes = new Map<number, number>();
      await waitForOrphansToExit(log, deathTimes, killedAt);

      const { service: second, api: api2 } = await startRuntimeService(config, base);
      try {
        for (const runId of admitted) {
          const run = await waitForTerminal(api2, runId, 30_000);
          expect(run.status).toBe('success');
        }
        expect(executionProblems(readExecutionLog(log), deathTimes)).toEqual([]);
        const dup = await api2.trigger('summarize-content', { content: 'item 0', log, idempotencyKey: 'crash-0' });
        expect(dup.body).toMatchObject({ status: 'duplicate-suppressed', reason: 'duplicate-success' });
        const interrupted = await Promise.all(admitted.map((id) => api2.run(id)));
        const recoveryEvents = new Set(['recovered-after-interruption', 'finished-from-durable-worker-result']);
        const recovered = interrupted.filter((r) => r.body.events.some((e: { name: string }) => recoveryEvents.has(e.name)));
        expect(recovered.length).toBeGreaterThan(0);
      } finally {
        await second.kill();
      }
    }, 90_000);
  });
}
