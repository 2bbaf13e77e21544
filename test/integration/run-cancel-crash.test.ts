import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { pidAlive } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { attemptGone, BUILT_WORKER_SDK_DIR, killAttempt, startsOf, waitForChild, type ChildRecord } from '../support/process-groups.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const NO_TIMEOUT = { laneTimeoutsMs: { 'summarize-content': 600_000 } };

const cancel = (running: RuntimeService, runId: string) =>
  running.api.post(`/api/tasks/runs/${encodeURIComponent(runId)}/cancel`, { reason: 'crash test' }, TEST_KEYS.operator);

async function waitForStatus(running: RuntimeService, runId: string, status: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const res = await running.api.run(runId);
      return res.body?.status === status ? res.body : undefined;
    },
    timeoutMs,
    `run ${runId} to be ${status}`,
  );
}

/** Kills only the service process, as a crash would (its workers lead groups of their own). */
async function crash(running: RuntimeService): Promise<void> {
  process.kill(running.service.child.pid!, 'SIGKILL');
  await running.service.kill();
}

describe('a crash of the service and the processes of its runs', () => {
  const children: ChildRecord[] = [];
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    for (const child of children) killAttempt(child);
  });

  it('kill -9 between the cancel request and the kill leaves, after restart, a cancelled run whose processes are gone and which never ran again', async () => {
    const base = tempDir('run-cancel-crash-');
    const log = join(base, 'executions.jsonl');
    writeFileSync(log, '');
    // A long grace: the service dies while it waits to send SIGKILL.
    const config = { concurrency: 1, cancelGraceMs: 60_000, ...NO_TIMEOUT };
    const first = await startRuntimeService(config, base);
    services.push(first);
    // This worker's own parent watch ends only the worker: its child, which ignores SIGTERM, stays
    // behind in the worker's group unless the service's next start ends that group.
    const res = await first.api.trigger('summarize-content', {
      content: 'c',
      mode: 'spawn-child',
      trapTerm: true,
      childTrapsTerm: true,
      log,
      idempotencyKey: 'crash-cancel',
    });
    expect(res.status).toBe(202);
    const child = await waitForChild(log, 'crash-cancel');
    children.push(child);

    expect((await cancel(first, 'crash-cancel')).status).toBe(202);
    await crash(first);
    await waitFor(async () => (pidAlive(child.workerPid) ? undefined : true), 5000, 'the orphaned worker to exit');
    expect(pidAlive(child.pid)).toBe(true);

    const second = await startRuntimeService(config, base);
    services.push(second);
    // Start-up ended the group before recovery: nothing of the attempt lives.
    expect(attemptGone(child)).toBe(true);
    expect(second.service.output.join('\n')).toContain('ended a worker process group left by a previous life of the service');
    const run = await waitForStatus(second, 'crash-cancel', 'cancelled');
    expect(run.cancellation).toMatchObject({ requestedBy: 'ops', reason: 'crash test', signal: null });
    expect(run.cancellation.completedAt).toEqual(expect.any(String));
    expect(run.attempt).toBe(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(startsOf(log, 'crash-cancel')).toBe(1);
    expect((await second.api.run('crash-cancel')).body.status).toBe('cancelled');
  }, 90_000);

  it('the service dying leaves no process of a worker alive, a project command in a group of its own included', async () => {
    const base = tempDir('run-cancel-orphan-');
    const log = join(base, 'executions.jsonl');
    writeFileSync(log, '');
    const running = await startRuntimeService({ ...NO_TIMEOUT }, base);
    services.push(running);
    // Like qa-verification running a project's tests: the worker SDK runs a command that sleeps
    // (and ignores SIGTERM) in a process group of its own.
    const res = await running.api.trigger('summarize-content', {
      content: 'o',
      mode: 'spawn-child',
      childVia: 'project-command',
      childTrapsTerm: true,
      sdkDir: BUILT_WORKER_SDK_DIR,
      log,
      idempotencyKey: 'orphaned-grandchild',
    });
    expect(res.status).toBe(202);
    const child = await waitForChild(log, 'orphaned-grandchild');
    children.push(child);
    expect(pidAlive(child.pid)).toBe(true);

    await crash(running);
    // No restart: the worker's parent watch ends its own group and the command's.
    await waitFor(async () => (attemptGone(child) ? true : undefined), 5000, 'every process of the attempt to end');
  }, 60_000);
});

const SKIP_REASON = 'TEST_DATABASE_URL unset: two instances on one PostgreSQL skipped';

describe.skipIf(!TEST_DATABASE_URL)(`cancel across instances on one PostgreSQL (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('run_cancel');
  const services: RuntimeService[] = [];
  const children: ChildRecord[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    for (const child of children) killAttempt(child);
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('a run claimed by one instance and cancelled at another is stopped by its owner within 2 s', async () => {
    const base = tempDir('run-cancel-pg-');
    const log = join(base, 'executions.jsonl');
    writeFileSync(log, '');
    const config = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema), concurrency: 1, cancelGraceMs: 5000, logLevel: 'info', ...NO_TIMEOUT };
    const owner = await startRuntimeService(config, tempDir('run-cancel-pg-a-'));
    services.push(owner);
    const res = await owner.api.trigger('summarize-content', { content: 'pg', mode: 'spawn-child', log, idempotencyKey: 'pg-cancel' });
    expect(res.status).toBe(202);
    const child = await waitForChild(log, 'pg-cancel');
    children.push(child);
    // The other instance starts once the run is claimed by the first.
    const other = await startRuntimeService(config, tempDir('run-cancel-pg-b-'));
    services.push(other);
    const claimed = (await other.api.run('pg-cancel')).body;
    expect(claimed.status).toBe('running');

    const asked = Date.now();
    const reply = await cancel(other, 'pg-cancel');
    expect(reply.body).toEqual({ runId: 'pg-cancel', status: 'cancelling' });
    const run = await waitForStatus(other, 'pg-cancel', 'cancelled', 10_000);
    expect(Date.now() - asked).toBeLessThan(4000);
    const at = (name: string) => Date.parse(run.events.find((e: { name: string }) => e.name === name).at);
    expect(at('cancelled') - at('cancel-requested')).toBeLessThanOrEqual(2000);
    expect(run.cancellation.signal).toBe('SIGTERM');
    expect(attemptGone(child)).toBe(true);
    // The owner wrote it: its log tells of the stop (logged after the write commits, so the other
    // instance can read the cancelled run a moment before the line arrives).
    const deadline = Date.now() + 5000;
    while (!owner.service.output.join('\n').includes('run cancelled') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(owner.service.output.join('\n')).toContain('run cancelled');
  }, 90_000);
});
