import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { executionProblems, readExecutionLog, waitForOrphansToExit, type ExecutionRecord } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const schema = uniqueSchema('perkey');
const KEYS = ['env/a', 'env/b', 'env/c'];
const RUNS_PER_KEY = 8;
const CAP = 2;

/** The most executions of one key's runs alive at once, by the workers' own log (a killed one lasts until it was seen gone). */
function peakPerKey(records: ExecutionRecord[], keyOf: (runId: string) => string, deathTimes: Map<number, number>): Map<string, number> {
  const edges: Array<{ key: string; at: number; delta: number }> = [];
  for (const start of records.filter((r) => r.event === 'start')) {
    const end = records.find((r) => r.event === 'end' && r.pid === start.pid && r.runId === start.runId);
    const to = end?.at ?? deathTimes.get(start.pid) ?? Number.POSITIVE_INFINITY;
    edges.push({ key: keyOf(start.runId), at: start.at, delta: 1 }, { key: keyOf(start.runId), at: to, delta: -1 });
  }
  // An end and a start at the same instant: the end first (the slot was free again).
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const now = new Map<string, number>();
  const peak = new Map<string, number>();
  for (const edge of edges) {
    const n = (now.get(edge.key) ?? 0) + edge.delta;
    now.set(edge.key, n);
    peak.set(edge.key, Math.max(peak.get(edge.key) ?? 0, n));
  }
  return peak;
}

const skipReason = TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL needed: skipped)';

describe.skipIf(skipReason !== '')(`a per-key cap under three instances on one PostgreSQL${skipReason}`, () => {
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it(`never runs more than ${CAP} of one key at once, and every run exactly once, through kill -9 of one instance`, async () => {
    const config = {
      databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema),
      concurrency: 4,
      runLeaseMs: 3000,
      laneTimeoutsMs: { 'summarize-content': 30_000 },
      logLevel: 'warn',
      limits: { deploys: { match: { keyPrefix: 'env/' }, perKey: CAP } },
    };
    for (let i = 0; i < 3; i++) services.push(await startRuntimeService(config, tempDir(`orch-perkey-${i}-`)));
    const log = join(tempDir('orch-perkey-log-'), 'executions.jsonl');
    writeFileSync(log, '');
    const keyOf = new Map<string, string>();
    for (let i = 0; i < RUNS_PER_KEY; i++) {
      for (const [k, key] of KEYS.entries()) {
        const runId = `cap-${k}-${i}`;
        keyOf.set(runId, key);
        const res = await services[(i + k) % 3]!.api.post('/api/tasks/trigger', {
          type: 'summarize-content',
          payload: { idempotencyKey: runId, content: runId, log, sleepMs: 1500 },
          concurrencyKey: key,
        });
        expect(res.status).toBe(202);
      }
    }
    const victim = services[2]!;
    const victimPid = victim.service.child.pid!;
    await waitFor(
      async () => (readExecutionLog(log).some((e) => e.event === 'start' && e.ppid === victimPid) ? true : undefined),
      30_000,
      'the victim instance to run work',
    );
    await victim.service.kill('SIGKILL');
    const deathTimes = new Map<number, number>();
    await waitForOrphansToExit(log, deathTimes, Date.now(), (e) => e.ppid === victimPid);

    const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      const finished = async () =>
        Number((await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${schema}".runs WHERE run_id LIKE 'cap-%' AND status = 'success'`)).rows[0]!.n);
      await waitFor(async () => ((await finished()) === KEYS.length * RUNS_PER_KEY ? true : undefined), 180_000, 'every run to finish');
    } finally {
      await db.end();
    }
    const records = readExecutionLog(log);
    expect(executionProblems(records, deathTimes)).toEqual([]);
    for (const runId of keyOf.keys()) expect(records.filter((r) => r.runId === runId && r.event === 'end'), runId).toHaveLength(1);
    const peaks = peakPerKey(records, (runId) => keyOf.get(runId)!, deathTimes);
    for (const key of KEYS) {
      expect(peaks.get(key), key).toBeLessThanOrEqual(CAP);
      // The cap was reached, not just respected by running one at a time.
      expect(peaks.get(key), key).toBe(CAP);
    }
  });
});
