import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { readExecutionLog } from '../support/execution-log.js';
import { waitFor } from '../support/http.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/**
 * No payload outlives its attempt on disk: the service runs with a temporary directory of its
 * own (TMPDIR), so what it leaves there is its attempts' `orchestrator-<runId>-*` folders.
 */
function serviceTmp(base: string) {
  const tmp = join(base, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return { env: { TMPDIR: tmp }, folders: () => readdirSync(tmp).filter((name) => name.startsWith('orchestrator-')) };
}

/** Starts a worker that works until it is stopped, and waits until it has started. */
async function startEndlessAttempt(running: RuntimeService, log: string, runId: string): Promise<void> {
  const res = await running.api.trigger('summarize-content', { content: 'x', mode: 'timeout', log, idempotencyKey: runId });
  expect(res.status).toBe(202);
  await waitFor(async () => (readExecutionLog(log).some((r) => r.event === 'start' && r.runId === runId) ? true : undefined), 15_000, 'the worker to start');
}

const NO_TIMEOUT = { laneTimeoutsMs: { 'summarize-content': 600_000 } };
const schema = uniqueSchema('payload_folders');
const stores: Array<[string, Record<string, unknown> | null]> = [
  ['the JSON file', { stateFile: './state/orchestrator-state.json' }],
  // A shared store: restart recovery leaves a run whose lease has not expired, folder included.
  ['PostgreSQL', TEST_DATABASE_URL ? { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL, schema), runLeaseMs: 120_000 } : null],
];

describe('the payload folders of attempts', () => {
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [schema]);
  });

  it('a shutdown mid-attempt leaves no payload folder', async () => {
    const base = tempDir('payload-shutdown-');
    const tmp = serviceTmp(base);
    const log = join(base, 'executions.jsonl');
    writeFileSync(log, '');
    const running = await startRuntimeService(NO_TIMEOUT, base, tmp.env);
    services.push(running);
    await startEndlessAttempt(running, log, 'shutdown-1');
    expect(tmp.folders()).toHaveLength(1);
    expect(await running.service.kill('SIGTERM')).toBe(0);
    expect(tmp.folders()).toEqual([]);
  }, 60_000);

  for (const [store, config] of stores) {
    it.skipIf(config === null)(`a kill -9 mid-attempt leaves a folder that the next start removes (${store})`, async () => {
      const base = tempDir('payload-crash-');
      const tmp = serviceTmp(base);
      const log = join(base, 'executions.jsonl');
      writeFileSync(log, '');
      const first = await startRuntimeService({ ...NO_TIMEOUT, ...config }, base, tmp.env);
      services.push(first);
      const runId = `crash-${store === 'PostgreSQL' ? 'pg' : 'file'}`;
      await startEndlessAttempt(first, log, runId);
      process.kill(first.service.child.pid!, 'SIGKILL');
      await first.service.kill();
      // The worker's parent watch ends it; its folder stays behind.
      const [left] = tmp.folders();
      expect(left).toMatch(new RegExp(`^orchestrator-${runId}-`));

      const second = await startRuntimeService({ ...NO_TIMEOUT, ...config }, base, tmp.env);
      services.push(second);
      // Gone once the service listens (a recovered attempt that runs again has a folder of its own).
      expect(tmp.folders()).not.toContain(left);
      expect(second.service.output.join('\n')).toContain('removed the payload directory of an attempt a previous life of the service left');
    }, 60_000);
  }
});
