import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrchClient, type LogStreamLine, type RunStreamEvent } from '../../src/client/index.js';
import { waitFor } from '../support/http.js';
import { tempDir } from '../support/config.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

describe("a run's log lines on its live event stream", () => {
  let svc: RuntimeService;
  beforeAll(async () => {
    svc = await startRuntimeService();
  });
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('sends what the worker prints as event: log, redacted, between the run events', async () => {
    const client = createOrchClient({ url: svc.service.url, apiKey: TEST_KEYS.viewer });
    // Log lines are live only: the worker prints once this stream is following the run (a run
    // admitted while a slot is free starts in its admission's commit, before any client could
    // subscribe).
    const subscribed = join(tempDir('log-stream-'), 'subscribed');
    const res = await svc.api.trigger('summarize-content', {
      content: 'talk to me',
      sleepMs: 600,
      stderr: ['warming up', `token=${TEST_KEYS.admin}`],
      stderrAfter: subscribed,
      idempotencyKey: 'log-stream-1',
    });
    expect(res.status).toBe(202);
    const seen: Array<{ kind: 'run'; event: RunStreamEvent } | { kind: 'log'; line: LogStreamLine }> = [];
    await client.followRun('log-stream-1', {
      onEvent: (event) => {
        seen.push({ kind: 'run', event });
        if (event.name === 'started') writeFileSync(subscribed, '');
      },
      onLog: (line) => seen.push({ kind: 'log', line }),
    });
    const logs = seen.flatMap((s) => (s.kind === 'log' ? [s.line] : []));
    expect(logs.map((l) => l.line)).toEqual(['warming up', 'token=[redacted:secret]']);
    expect(logs.every((l) => l.runId === 'log-stream-1' && l.attemptId === 'log-stream-1#1' && l.stream === 'stderr')).toBe(true);
    expect(JSON.stringify(seen)).not.toContain(TEST_KEYS.admin);
    const started = seen.findIndex((s) => s.kind === 'run' && s.event.name === 'started');
    const firstLog = seen.findIndex((s) => s.kind === 'log');
    expect(started).toBeGreaterThanOrEqual(0);
    expect(firstLog).toBeGreaterThan(started);
    const last = seen.at(-1)!;
    expect(last.kind === 'run' && last.event.status).toBe('success');
    // The same lines are kept for the logs route.
    const kept = await waitFor(async () => {
      const body = (await svc.api.get('/api/tasks/runs/log-stream-1/logs', TEST_KEYS.operator)).body as { attempts: Array<{ lines: Array<{ line: string }> }> };
      return body.attempts[0]?.lines.length === 2 ? body : undefined;
    });
    expect(kept.attempts[0]!.lines[0]!.line).toBe('warming up');
  });
});
