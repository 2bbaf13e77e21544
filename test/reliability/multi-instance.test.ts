import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { tempDir } from '../support/config.js';
import { executionProblems, readExecutionLog, waitForOrphansToExit } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { RAISED_RATE_LIMITS, startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const REDIS_URL = process.env.TEST_REDIS_URL || undefined;
const UNIQUE_KEYS = 1600;
const DUPLICATES = 400;
const HEALTH_LIMIT = 40;

const schema = uniqueSchema('multi');
const keyPrefix = `test-multi-${randomBytes(4).toString('hex')}:`;

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Runs `work` over `items` with at most `width` calls in flight. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

const skipReason = !TEST_DATABASE_URL || !REDIS_URL ? ' (TEST_DATABASE_URL and TEST_REDIS_URL needed: skipped)' : '';

describe.skipIf(skipReason !== '')(`three instances on one PostgreSQL and one Redis${skipReason}`, () => {
  const services: RuntimeService[] = [];
  let db: pg.Client;

  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await db?.end();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
    await deleteKeysWithPrefix(REDIS_URL!, keyPrefix);
  });

  async function finishedCount(prefix: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM "${schema}".runs WHERE run_id LIKE $1 AND status IN ('success', 'failed')`,
      [`${prefix}%`],
    );
    return Number(rows[0]!.n);
  }

  it('executes every unique key exactly once, suppresses every duplicate, shares rate limits, and survives kill -9 of one instance', async () => {
    const config = {
      databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema),
      kvStoreUrl: REDIS_URL,
      kvKeyPrefix: keyPrefix,
      concurrency: 4,
      runLeaseMs: 3000,
      // The slow runs outlive the fixture manifest's short timeout; they must not time out, only be taken over.
      laneTimeoutsMs: { 'summarize-content': 30_000 },
      logLevel: 'warn',
      rateLimits: { ...RAISED_RATE_LIMITS, 'health-public': { max: HEALTH_LIMIT, windowSeconds: 60 } },
    };
    // Started one after another: the first applies the migrations, the others find them done.
    for (let i = 0; i < 3; i++) services.push(await startRuntimeService(config, tempDir(`orch-multi-${i}-`)));
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const log = join(tempDir('orch-multi-log-'), 'executions.jsonl');
    writeFileSync(log, '');

    // --- 2,000 triggers, 20% of them repeating a key, spread over the three instances.
    const random = rng(12);
    const requests: Array<{ key: string; instance: number }> = [];
    const keys = Array.from({ length: UNIQUE_KEYS }, (_, i) => `multi-${i}`);
    keys.forEach((key, i) => requests.push({ key, instance: i % 3 }));
    for (let d = 0; d < DUPLICATES; d++) {
      const original = Math.floor(random() * UNIQUE_KEYS);
      // A duplicate goes to another instance than its original, soon after it (often while in flight).
      const at = Math.min(requests.length, original + 1 + Math.floor(random() * 30));
      requests.splice(at, 0, { key: keys[original]!, instance: (original + 1 + (d % 2)) % 3 });
    }
    expect(requests).toHaveLength(UNIQUE_KEYS + DUPLICATES);
    const replies = await inBatches(requests, 24, async ({ key, instance }) => {
      const res = await services[instance]!.api.trigger('summarize-content', { idempotencyKey: key, content: `work ${key}`, log });
      return { key, status: res.status, body: res.body as { status: string; runId: string } };
    });
    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
    const admittedPerKey = new Map<string, number>();
    for (const r of replies.filter((x) => x.status === 202)) admittedPerKey.set(r.key, (admittedPerKey.get(r.key) ?? 0) + 1);
    expect(admittedPerKey.size).toBe(UNIQUE_KEYS);
    expect([...admittedPerKey.values()].every((n) => n === 1)).toBe(true);
    const suppressed = replies.filter((r) => r.status === 200);
    expect(suppressed).toHaveLength(DUPLICATES);
    expect(suppressed.every((r) => r.body.status === 'duplicate-suppressed')).toBe(true);

    await waitFor(async () => ((await finishedCount('multi-')) === UNIQUE_KEYS ? true : undefined), 240_000, 'every admitted run to finish');
    const { rows: statuses } = await db.query<{ status: string; n: string }>(
      `SELECT status, COUNT(*) AS n FROM "${schema}".runs WHERE run_id LIKE 'multi-%' GROUP BY status`,
    );
    expect(statuses.map((r) => [r.status, Number(r.n)])).toEqual([['success', UNIQUE_KEYS]]);
    const executions = readExecutionLog(log);
    const ends = new Map<string, number>();
    for (const e of executions.filter((x) => x.event === 'end')) ends.set(e.runId, (ends.get(e.runId) ?? 0) + 1);
    expect(keys.filter((k) => ends.get(k) !== 1)).toEqual([]);
    expect(executions.filter((e) => e.event === 'start')).toHaveLength(UNIQUE_KEYS);
    // Work was shared: every instance claimed runs (their workers' parents differ).
    const { rows: owners } = await db.query<{ owner: string }>(
      `SELECT DISTINCT doc->'queueAttempts'->1->>'ownerId' AS owner FROM "${schema}".runs WHERE run_id LIKE 'multi-%'`,
    );
    expect(owners.length).toBe(3);

    // --- Rate limits are shared: the per-IP health bucket allows HEALTH_LIMIT calls across all instances together.
    const healthReplies = await inBatches(Array.from({ length: 60 }, (_, i) => i % 3), 6, async (i) =>
      (await fetch(`${services[i]!.service.url}/health`)).status,
    );
    expect(healthReplies.filter((s) => s === 200)).toHaveLength(HEALTH_LIMIT);
    expect(healthReplies.filter((s) => s === 429)).toHaveLength(60 - HEALTH_LIMIT);

    // --- kill -9 one instance while it runs work: its runs are finished by another instance, none twice.
    const victim = services[2]!;
    const victimPid = victim.service.child.pid!;
    const slowKeys = Array.from({ length: 24 }, (_, i) => `slow-${i}`);
    for (const [i, key] of slowKeys.entries()) {
      const res = await services[i % 3]!.api.trigger('summarize-content', { idempotencyKey: key, content: key, log, sleepMs: 4000 });
      expect(res.status).toBe(202);
    }
    await waitFor(
      async () => (readExecutionLog(log).some((e) => e.event === 'start' && e.runId.startsWith('slow-') && e.ppid === victimPid) ? true : undefined),
      30_000,
      'the victim instance to run slow work',
    );
    await victim.service.kill('SIGKILL');
    const killedAt = Date.now();
    // Every worker the victim spawned, read after the kill: one that wrote its start between the
    // poll above and the kill counts too. Each must be gone before a survivor may take its run.
    const deathTimes = new Map<number, number>();
    const victimWorkers = await waitForOrphansToExit(log, deathTimes, killedAt, (e) => e.runId.startsWith('slow-') && e.ppid === victimPid);
    const survivors = services.slice(0, 2);
    await waitFor(async () => ((await finishedCount('slow-')) === slowKeys.length ? true : undefined), 120_000, 'the slow runs to finish');

    const slowExecutions = readExecutionLog(log).filter((e) => e.runId.startsWith('slow-'));
    expect(executionProblems(slowExecutions, deathTimes)).toEqual([]);
    for (const key of slowKeys) {
      expect(slowExecutions.filter((e) => e.runId === key && e.event === 'end'), key).toHaveLength(1);
    }
    for (const taken of victimWorkers) {
      const run = (await survivors[0]!.api.get(`/api/tasks/runs/${taken.runId}`, TEST_KEYS.viewer)).body as {
        status: string;
        queueAttempts: Array<{ attempt: number; state: string }>;
      };
      expect(run.status, taken.runId).toBe('success');
      // Re-admitted under a new queue attempt after the lease expired, and finished by a survivor.
      expect(run.queueAttempts.some((a) => a.attempt === 2 && a.state === 'success'), taken.runId).toBe(true);
      const end = slowExecutions.find((e) => e.runId === taken.runId && e.event === 'end')!;
      expect(end.pid).not.toBe(taken.pid);
    }
    // (The public health bucket is spent above, across every instance: read the protected summary.)
    const summary = await survivors[0]!.api.get('/api/persistence/summary');
    expect(summary.body).toMatchObject({ activeStore: 'postgres', store: { shared: true }, coordination: { store: 'kvstore', status: 'ok' } });
  });
});
