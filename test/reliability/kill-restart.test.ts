import { existsSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { executionProblems, pidAlive, readExecutionLog, waitForOrphansToExit } from '../support/execution-log.js';
import { waitForTerminal } from '../support/http.js';
import { startRuntimeService } from '../support/runtime-service.js';
import { listAllRunIds } from '../support/run-ids.js';

const CYCLES = Number(process.env.RELIABILITY_CYCLES ?? 30);
/**
 * Of every three cycles, one waits until a worker is mid-run and kills then, and (JSON store) one
 * waits for a compaction to begin and kills it there; the others kill at a random moment.
 */
const COMPACTION_EVERY = 3;

/** Deterministic pseudo-random numbers so a failing cycle can be replayed with the same seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Resolves when `<file>` appears in `dir` (or after `timeoutMs`, with false). */
function whenCreated(dir: string, file: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const watcher = watch(dir, (_event, name) => {
      if (name === file && existsSync(join(dir, file))) done(true);
    });
    const timer = setTimeout(() => done(false), timeoutMs);
    function done(seen: boolean) {
      clearTimeout(timer);
      watcher.close();
      resolve(seen);
    }
  });
}

/** Resolves once some worker is mid-run (or after `timeoutMs`). */
async function whenWorkerRunning(log: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && runningWorkers(log).length === 0) await new Promise((r) => setTimeout(r, 2));
}

/** Workers that had started a run and not ended it, and are still alive: the kill caught them mid-run. */
function runningWorkers(log: string): number[] {
  const records = readExecutionLog(log);
  const ended = new Set(records.filter((r) => r.event === 'end').map((r) => `${r.pid}:${r.runId}`));
  return records.filter((r) => r.event === 'start' && !ended.has(`${r.pid}:${r.runId}`) && pidAlive(r.pid)).map((r) => r.pid);
}

for (const target of ['./state/orchestrator-state.json', 'sql:./state/orchestrator.sqlite']) {
  const json = !target.startsWith('sql:');
  const storeName = json ? 'JSON file' : 'SQLite';
  describe(`kill -9 at random moments (${storeName})`, () => {
    it(`loses no acknowledged run and runs none twice over ${CYCLES} crash cycles`, async () => {
      const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 100_000);
      const random = rng(seed);
      const base = tempDir('orch-reliability-');
      const log = join(base, 'executions.jsonl');
      const stateDir = join(base, 'state');
      writeFileSync(log, '');
      // A small journal threshold makes the JSON store compact every few dozen writes.
      const config = { stateFile: target, concurrency: 3, logLevel: 'warn', ...(json ? { storeCompactAfterEntries: 40 } : {}) };
      const acknowledged: string[] = [];
      const acknowledgedSet = new Set<string>();
      /** Findings are collected here and asserted outside the clients' try/catch. */
      const lost: string[] = [];
      const unexpected: string[] = [];
      const deathTimes = new Map<number, number>();
      let killsOnRunningWorkers = 0;
      let killsDuringCompaction = 0;
      let keyCounter = 0;

      for (let cycle = 0; cycle < CYCLES; cycle += 1) {
        const { service, api } = await startRuntimeService(config, base);
        // Everything acknowledged by an earlier incarnation is still there, every key every time.
        let present: Set<string>;
        try {
          present = await listAllRunIds(api);
        } catch (err) {
          await service.kill();
          throw err;
        }
        for (const key of acknowledged) if (!present.has(key)) lost.push(`${key} missing after restart ${cycle}`);
        if (lost.length > 0) await service.kill();
        expect(lost, `seed ${seed}`).toEqual([]);

        let killed = false;
        const clients = Array.from({ length: 4 }, async () => {
          while (!killed) {
            const repeat = acknowledged.length > 0 && random() < 0.2;
            const key = repeat ? acknowledged[Math.floor(random() * acknowledged.length)]! : `k${seed}-${(keyCounter += 1)}`;
            const payload = { content: `work ${key}`, log, sleepMs: Math.floor(random() * 40), idempotencyKey: key };
            let status: number;
            try {
              status = (await api.trigger('summarize-content', payload)).status;
            } catch {
              continue; // the connection died with the process: nothing was acknowledged
            }
            if (repeat) {
              // The service already acknowledged this key: only a 200 (duplicate) is right. A 202
              // would admit it afresh, which means it was lost and the repeat is hiding that.
              if (status === 202) lost.push(`${key} re-admitted (202) in cycle ${cycle}: the acknowledged run was gone`);
              else if (status !== 200) unexpected.push(`repeat ${key}: ${status}`);
            } else if (status === 202) {
              acknowledged.push(key);
              acknowledgedSet.add(key);
            } else {
              unexpected.push(`new key ${key}: ${status}`);
            }
          }
        });

        const aimAtCompaction = json && cycle % COMPACTION_EVERY === COMPACTION_EVERY - 1;
        const aimAtWorker = cycle % COMPACTION_EVERY === 1;
        if (aimAtCompaction) await whenCreated(stateDir, 'orchestrator-state.json.tmp', 5000);
        else if (aimAtWorker) await whenWorkerRunning(log, 5000);
        else await new Promise((r) => setTimeout(r, 50 + random() * 700));
        process.kill(service.child.pid!, 'SIGKILL');
        const killedAt = Date.now();
        killed = true;
        // Evidence of where the kill landed, read before anything else can move on.
        const caught = runningWorkers(log);
        if (caught.length > 0) killsOnRunningWorkers += 1;
        if (json && existsSync(join(stateDir, 'orchestrator-state.json.tmp'))) killsDuringCompaction += 1;
        await service.kill();
        await Promise.all(clients);
        await waitForOrphansToExit(log, deathTimes, killedAt);
      }

      console.info(
        `${storeName} seed ${seed}: ${acknowledged.length} acknowledged keys checked after each of ${CYCLES} restarts; ` +
          `${killsOnRunningWorkers} kills caught a worker mid-run, ${killsDuringCompaction} interrupted a compaction`,
      );
      expect(lost, `seed ${seed}`).toEqual([]);
      expect(unexpected, `seed ${seed}`).toEqual([]);
      // The cycles proved something only if kills hit work in progress.
      expect(killsOnRunningWorkers, `seed ${seed}: kills that caught a worker mid-run`).toBeGreaterThan(0);
      if (json) expect(killsDuringCompaction, `seed ${seed}: kills that interrupted a compaction`).toBeGreaterThan(0);

      const { service: final, api } = await startRuntimeService(config, base);
      try {
        const present = await listAllRunIds(api);
        expect(acknowledged.filter((key) => !present.has(key)), `seed ${seed}`).toEqual([]);
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
        expect(acknowledgedSet.size).toBe(acknowledged.length);
      } finally {
        await final.kill();
      }
    }, 900_000);
  });
}
