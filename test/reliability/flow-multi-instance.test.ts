import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { executionProblems, readExecutionLog, waitForOrphansToExit } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const schema = uniqueSchema('flowmulti');
const APPLICATION = `orch-flowmulti-${process.pid}`;
const FAN_OUT = 50;
const CHAIN = 48;
const skipReason = TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL needed: skipped)';

/**
 * 200 steps: a root, a fan-out of 50 branches two steps deep, a fan-in over them, then a chain
 * of 48. Each step's worker writes `start` and `end` to the execution log.
 */
function flowSteps(log: string) {
  const step = (key: string, dependsOn: string[], extra: Record<string, unknown> = {}) => ({
    key,
    type: 'summarize-content',
    payload: { content: `work ${key}`, log, ...extra },
    dependsOn,
  });
  const steps = [step('root', [])];
  for (let i = 0; i < FAN_OUT; i++) {
    // The first level sleeps, so the instance killed below is in the middle of some of them.
    steps.push(step(`f${i}`, ['root'], { sleepMs: 1500 }), step(`g${i}`, [`f${i}`]), step(`h${i}`, [`g${i}`]));
  }
  steps.push(step('join', Array.from({ length: FAN_OUT }, (_, i) => `h${i}`)));
  for (let i = 0; i < CHAIN; i++) steps.push(step(`c${i}`, [i === 0 ? 'join' : `c${i - 1}`]));
  return steps;
}

describe.skipIf(skipReason !== '')(`a 200-step flow on three instances sharing one PostgreSQL${skipReason}`, () => {
  const services: RuntimeService[] = [];
  let db: pg.Client | undefined;

  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await db?.end();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('runs every step exactly once, promotes none twice, leaves none waiting, and ends, through a kill -9 and a connection cut', async () => {
    const url = new URL(postgresUrlWithSchema(TEST_DATABASE_URL!, schema));
    url.searchParams.set('application_name', APPLICATION);
    const config = { databaseUrl: url.toString(), concurrency: 4, runLeaseMs: 3000, laneTimeoutsMs: { 'summarize-content': 30_000 }, logLevel: 'warn' };
    // One after another: the first applies the migrations.
    for (let i = 0; i < 3; i++) services.push(await startRuntimeService(config, tempDir(`orch-flowmulti-${i}-`)));
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const log = join(tempDir('orch-flowmulti-log-'), 'executions.jsonl');
    writeFileSync(log, '');

    const steps = flowSteps(log);
    expect(steps).toHaveLength(200);
    const admitted = await services[0]!.api.post('/api/flows', { id: 'big', steps });
    expect(admitted.status).toBe(202);

    // kill -9 one instance while it runs a step of the fan-out.
    const victim = services[2]!;
    const victimPid = victim.service.child.pid!;
    await waitFor(async () => (readExecutionLog(log).some((e) => e.event === 'start' && e.ppid === victimPid) ? true : undefined), 60_000, 'the victim to run a step');
    await victim.service.kill('SIGKILL');
    const killedAt = Date.now();
    const deathTimes = new Map<number, number>();
    await waitForOrphansToExit(log, deathTimes, killedAt, (e) => e.ppid === victimPid);

    // Then every connection the survivors hold is cut once.
    const { rows } = await db.query<{ ended: boolean }>(
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [APPLICATION],
    );
    expect(rows.some((r) => r.ended)).toBe(true);

    const survivor = services[0]!.api;
    const flow = await waitFor(
      async () => {
        const res = await survivor.get('/api/flows/big', TEST_KEYS.viewer).catch(() => null);
        return res?.status === 200 && res.body.status !== 'running' ? res.body : undefined;
      },
      300_000,
      'the flow to end',
    );
    expect(flow.status).toBe('success');
    expect(flow.steps.filter((s: { state: string }) => s.state !== 'success')).toEqual([]);

    // Exactly once, by the workers' own log: one end per step, no two executions of one step at once.
    const executions = readExecutionLog(log);
    expect(executionProblems(executions, deathTimes)).toEqual([]);
    const ends = new Map<string, number>();
    for (const e of executions.filter((x) => x.event === 'end')) ends.set(e.runId, (ends.get(e.runId) ?? 0) + 1);
    expect(steps.filter((s) => ends.get(`flow:big:${s.key}`) !== 1).map((s) => s.key)).toEqual([]);

    // Promoted once each: one `dependencies-ended` event per step, read from the store itself.
    const { rows: promotions } = await db.query<{ run_id: string; n: string }>(
      `SELECT run_id, (SELECT COUNT(*) FROM jsonb_array_elements(doc -> 'events') e WHERE e ->> 'name' = 'dependencies-ended') AS n
       FROM "${schema}".runs WHERE run_id LIKE 'flow:big:%'`,
    );
    expect(promotions).toHaveLength(200);
    expect(promotions.filter((p) => Number(p.n) !== 1).map((p) => p.run_id)).toEqual([]);
    const { rows: waiting } = await db.query(`SELECT run_id FROM "${schema}".runs WHERE queue_state = 'waiting'`);
    expect(waiting).toEqual([]);
  });
});
