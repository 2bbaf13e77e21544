import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

interface Variant {
  name: string;
  available: boolean;
  config: () => Record<string, unknown>;
}

const schema = uniqueSchema('runlogs');
const VARIANTS: Variant[] = [
  { name: 'SQLite store', available: true, config: () => ({ stateFile: 'sql:./state/orchestrator.sqlite' }) },
  {
    name: TEST_DATABASE_URL ? 'PostgreSQL store' : 'PostgreSQL store (TEST_DATABASE_URL unset: skipped)',
    available: TEST_DATABASE_URL !== undefined,
    config: () => ({ databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) }),
  },
];

afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [schema]);
});

const TOKEN = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';

interface ExportLine {
  kind: string;
  collection?: string;
  id?: string;
  record?: Record<string, unknown>;
}

describe.each(VARIANTS)('run logs on the $name', (variant) => {
  let svc: RuntimeService;
  const operator = (path: string) => svc.api.get(path, TEST_KEYS.operator);
  const logsOf = (runId: string) => operator(`/api/tasks/runs/${encodeURIComponent(runId)}/logs`);

  /** The stored run log documents, read through the admin export (the store as it is, whatever the driver). */
  async function storedLogDocs(): Promise<ExportLine[]> {
    const res = await fetch(`${svc.service.url}/api/persistence/export`, { headers: { authorization: `Bearer ${TEST_KEYS.admin}` } });
    expect(res.status).toBe(200);
    const lines = (await res.text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as ExportLine);
    return lines.filter((l) => l.kind === 'record' && (l.collection === 'docs:runLogs' || l.collection === 'docs:runLogIndex'));
  }

  beforeAll(async () => {
    if (!variant.available) return;
    svc = await startRuntimeService({
      concurrency: 4,
      runRetention: 10,
      retry: { maxAttempts: 2, baseDelayMs: 300, maxDelayMs: 1000 },
      ...variant.config(),
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.service.kill();
  });

  it.skipIf(!variant.available)("keeps a worker's stderr per attempt, redacted, and still prints it to the service's own output", async () => {
    const stderr = [
      'stderr-marker-alpha starting',
      `calling upstream with ${TEST_KEYS.operator} and token=${TOKEN}`,
      `webhook secret is ${TEST_WEBHOOK_SECRET}`,
      'stderr-marker-omega done',
    ];
    const res = await svc.api.trigger('summarize-content', { content: 'x', stderr, idempotencyKey: 'logs-worker' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(svc.api, 'logs-worker');
    expect(run.status).toBe('success');

    // Read right after the run shows finished: the attempt's last lines were written before that.
    const logs = await logsOf('logs-worker');
    expect(logs.status).toBe(200);
    expect(logs.body.runId).toBe('logs-worker');
    expect(logs.body.attempts).toHaveLength(1);
    const [attempt] = logs.body.attempts;
    expect(attempt).toMatchObject({ attemptId: 'logs-worker#1', truncated: 0 });
    const lines = attempt.lines.map((l: { line: string }) => l.line);
    expect(lines[0]).toBe('stderr-marker-alpha starting');
    expect(lines.at(-1)).toBe('stderr-marker-omega done');
    expect(attempt.lines.every((l: { stream: string; at: string }) => l.stream === 'stderr' && !Number.isNaN(Date.parse(l.at)))).toBe(true);

    const answer = JSON.stringify(logs.body);
    const stored = JSON.stringify(await storedLogDocs());
    expect(stored).toContain('stderr-marker-alpha');
    for (const text of [answer, stored]) {
      expect(text).not.toContain(TEST_KEYS.operator);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(TEST_WEBHOOK_SECRET);
      expect(text).toContain('[redacted:secret]');
    }
    // The service's own stderr still carries the worker's lines, as when stderr was inherited.
    await waitFor(async () => (svc.service.output.some((l) => l.includes('stderr-marker-omega done')) ? true : undefined), 5_000);
    expect(svc.service.output.some((l) => l.includes('stderr-marker-alpha starting'))).toBe(true);
  });

  it.skipIf(!variant.available)('is for operators: a viewer gets 403, no key 401, an unknown run 404; a silent attempt has no lines, one that never ran is not listed', async () => {
    expect((await svc.api.get('/api/tasks/runs/logs-worker/logs', TEST_KEYS.viewer)).status).toBe(403);
    expect((await svc.api.get('/api/tasks/runs/logs-worker/logs', null)).status).toBe(401);
    expect((await svc.api.get('/api/tasks/runs/logs-worker/logs', TEST_KEYS.admin)).status).toBe(200);
    const unknown = await logsOf('no-such-run');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    await svc.api.trigger('summarize-content', { content: 'quiet', idempotencyKey: 'logs-quiet' });
    await waitForTerminal(svc.api, 'logs-quiet');
    expect((await logsOf('logs-quiet')).body).toEqual({ runId: 'logs-quiet', attempts: [{ attemptId: 'logs-quiet#1', lines: [], truncated: 0 }] });
    await svc.api.trigger('summarize-content', { content: 'held', requiresApproval: true, idempotencyKey: 'logs-held' });
    expect((await logsOf('logs-held')).body).toEqual({ runId: 'logs-held', attempts: [] });
  });

  it.skipIf(!variant.available)('lists both attempts of a retried run, each with its own lines', async () => {
    const log = join(svc.base, `retry-${variant.name.length}.jsonl`);
    writeFileSync(log, '');
    await svc.api.trigger('summarize-content', { content: 'x', mode: 'fail-first', log, stderr: ['attempt says hello'], idempotencyKey: 'logs-retry' });
    const run = await waitForTerminal(svc.api, 'logs-retry');
    expect(run).toMatchObject({ status: 'success', attempt: 2 });
    const logs = await logsOf('logs-retry');
    expect(logs.body.attempts.map((a: { attemptId: string }) => a.attemptId)).toEqual(['logs-retry#1', 'logs-retry#2']);
    const [first, second] = logs.body.attempts.map((a: { lines: Array<{ line: string }> }) => a.lines.map((l) => l.line));
    expect(first).toEqual(['attempt says hello', 'fixture agent crashing on purpose']);
    expect(second).toEqual(['attempt says hello']);
  });

  it.skipIf(!variant.available)('removes the logs of runs that retention pruned', async () => {
    const before = await storedLogDocs();
    expect(before.some((l) => l.id === 'logs-worker#1' && l.collection === 'docs:runLogs')).toBe(true);
    // runRetention is 10: twelve more finished runs push the earlier ones out at the next pass (every 10 s).
    for (let i = 0; i < 12; i++) await svc.api.trigger('summarize-content', { content: `filler ${i}`, idempotencyKey: `logs-filler-${i}` });
    for (let i = 0; i < 12; i++) await waitForTerminal(svc.api, `logs-filler-${i}`);
    await waitFor(async () => ((await svc.api.run('logs-worker')).status === 404 ? true : undefined), 30_000, 'retention to prune the run');
    expect((await logsOf('logs-worker')).status).toBe(404);
    const after = await waitFor(
      async () => {
        const docs = await storedLogDocs();
        return docs.some((l) => l.id?.startsWith('logs-worker#') || l.id?.startsWith('logs-retry#')) ? undefined : docs;
      },
      15_000,
      'the pruned runs’ logs to go',
    );
    expect(after).toEqual([]);
  }, 60_000);
});
