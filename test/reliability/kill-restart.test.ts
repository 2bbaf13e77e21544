import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { executionProblems, pidAlive, readExecutionLog } from '../support/execution-log.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { startRuntimeService } from '../support/runtime-service.js';

const CYCLES = Number(process.env.RELIABILITY_CYCLES ?? 30);

/** Deterministic pseudo-random numbers so a failing cycle can be replayed with the same seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

for (const target of ['./state/orchestrator-state.json', 'sql:./state/orchestrator.sqlite']) {
  const storeName = target.startsWith('sql:') ? 'SQLite' : 'JSON file';
  describe(`kill -9 at random moments (${storeName})`, () => {
    it(`loses no acknowledged run and runs none twice over ${CYCLES} crash cycles`, async () => {
      const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 100_000);
      const random = rng(seed);
      const base = tempDir('orch-reliability-');
      const log = join(base, 'executions.jsonl');
      writeFileSync(log, '');
      const config = { stateFile: target, concurrency: 3, logLevel: 'warn' };
      const acknowledged: string[] = [];
      const deathTimes = new Map<number, number>();
      let keyCounter = 0;

      for (let cycle = 0; cycle < CYCLES; cycle += 1) {
        const { service, api } = await startRuntimeService(config, base);
        // Everything acknowledged by an earlier incarnation is still there.
        for (const runId of acknowledged.slice(-40)) {
          const res = await api.run(runId);
          expect(res.status, `cycle ${cycle} seed ${seed}: ${runId} lost`).toBe(200);
        }
        let killed = false;
        const clients = Array.from({ length: 4 }, async () => {
          while (!killed) {
            const repeat = acknowledged.length > 0 && random() < 0.2;
            const key = repeat ? acknowledged[Math.floor(random() * acknowledged.length)]! : `k${seed}-${(keyCounter += 1)}`;
            const payload = { content: `work ${key}`, log, sleepMs: Math.floor(random() * 40), idempotencyKey: key };
            try {
              const res = await api.trigger('summarize-content', payload);
              if (res.status === 202 && !repeat) acknowledged.push(key);
              if (repeat) expect([200, 202]).toContain(res.status);
            } catch {
              // the connection died with the process: not acknowledged
            }
          }
        });
        await new Promise((r) => setTimeout(r, 50 + random() * 700));
        process.kill(service.child.pid!, 'SIGKILL');
        killed = true;
        await service.kill();
        await Promise.all(clients);
        const pids = [...new Set(readExecutionLog(log).map((r) => r.pid))].filter((pid) => !deathTimes.has(pid));
        await waitFor(
          async () => {
            for (const pid of pids) if (!pidAlive(pid) && !deathTimes.has(pid)) deathTimes.set(pid, Date.now());
            return pids.every((pid) => !pidAlive(pid)) ? true : undefined;
          },
          5000,
          'orphaned workers to exit',
        );
      }

      const { service: final, api } = await startRuntimeService(config, base);
      try {
        for (const runId of acknowledged) {
          const run = await waitForTerminal(api, runId, 60_000);
          expect(['success', 'failed'], `${runId} seed ${seed}`).toContain(run.status);
          if (run.status === 'failed') expect(run.failureReason).toBe('interrupted');
        }
        expect(executionProblems(readExecutionLog(log), deathTimes), `seed ${seed}`).toEqual([]);
        for (const runId of acknowledged.slice(0, 50)) {
          const dup = await api.trigger('summarize-content', { content: 'again', idempotencyKey: runId });
          expect(dup.status).toBe(200);
          expect(dup.body.status).toBe('duplicate-suppressed');
        }
        expect(acknowledged.length).toBeGreaterThan(CYCLES);
      } finally {
        await final.kill();
      }
    }, 900_000);
  });
}
