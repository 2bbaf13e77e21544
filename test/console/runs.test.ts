import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../console/src/api/errors.js';
import { followStream, reconnectDelayMs, type StreamState } from '../../console/src/api/event-stream.js';
import { EventStreamParser, type StreamEvent } from '../../console/src/api/sse-parser.js';
import { curlCommand } from '../../console/src/runs/curl.js';
import { formatAgo, formatDuration } from '../../console/src/runs/format.js';
import { resultViewOf as viewBySpec } from '../../console/src/runs/result-kinds.js';
import { getTaskType } from '../../src/runtime/catalog.js';

/** The console reads a type's view spec from the catalog; these cases take it from the type module. */
const resultViewOf = (type: string, result: unknown) => viewBySpec(getTaskType(type)?.resultView, result);
import { attemptTimeline } from '../../console/src/runs/timeline.js';

describe('EventStreamParser', () => {
  it('joins lines split across chunks, skips comments and keeps the last id', () => {
    const events: StreamEvent[] = [];
    const parser = new EventStreamParser((e) => events.push(e));
    parser.push('retry: 1000\n\n: keepalive\n\nid: 1.2.3\nevent: run\nda');
    parser.push('ta: {"seq":1}\r');
    parser.push('\n\r\nevent: log\ndata: a\ndata: b\n\n');
    expect(events).toEqual([
      { event: 'run', id: '1.2.3', data: '{"seq":1}' },
      { event: 'log', id: '1.2.3', data: 'a\nb' },
    ]);
  });
});

function streamOf(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

describe('followStream', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('sends the key as a header, resumes with Last-Event-ID after a drop, waits out a 429 and stops at end', async () => {
    const requests: Array<{ path: string; headers: Record<string, string> }> = [];
    const answers = [
      () => new Response(streamOf('id: a.1.1\nevent: run\ndata: {"seq":1}\n\n'), { status: 200 }),
      () => new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down', requestId: 'r' } }), { status: 429, headers: { 'retry-after': '2' } }),
      () => new Response(streamOf('id: a.1.2\nevent: run\ndata: {"seq":2}\n\nevent: end\ndata: {"status":"success"}\n\nevent: run\ndata: after-end\n\n'), { status: 200 }),
    ];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      requests.push({ path, headers: init.headers as Record<string, string> });
      return answers.shift()!();
    });
    const events: StreamEvent[] = [];
    const states: StreamState[] = [];
    const sleeps: number[] = [];
    await followStream('/api/tasks/runs/r1/events', {
      token: 'key-1',
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
      onState: (s) => states.push(s),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0,
    });
    expect(events.map((e) => e.data)).toEqual(['{"seq":1}', '{"seq":2}', '{"status":"success"}']);
    expect(requests.map((r) => r.path)).toEqual(Array(3).fill('/api/tasks/runs/r1/events'));
    expect(requests.every((r) => r.headers.authorization === 'Bearer key-1')).toBe(true);
    expect(requests[0]!.headers['last-event-id']).toBeUndefined();
    expect(requests[1]!.headers['last-event-id']).toBe('a.1.1');
    expect(requests[2]!.headers['last-event-id']).toBe('a.1.1');
    // The drop waits the first backoff step; the 429 waits its Retry-After.
    expect(sleeps).toEqual([reconnectDelayMs(0, () => 0), 2000]);
    expect(states).toContain('waiting');
    expect(states.at(-1)).toBe('ended');
  });

  it('gives up on an answer that will not change (404) and reports it', async () => {
    let calls = 0;
    vi.stubGlobal('fetch', async () => {
      calls += 1;
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'run x not found', requestId: 'r' } }), { status: 404 });
    });
    const errors: unknown[] = [];
    await followStream('/api/tasks/runs/x/events', {
      token: 'k',
      signal: new AbortController().signal,
      onEvent: () => undefined,
      onState: (s, d) => s === 'failed' && errors.push(d.error),
      sleep: async () => undefined,
    });
    expect(calls).toBe(1);
    expect(errors[0]).toBeInstanceOf(ApiError);
    expect((errors[0] as ApiError).code).toBe('not_found');
  });

  it('backs off exponentially up to 30 s', () => {
    expect(reconnectDelayMs(0, () => 1)).toBe(1000);
    expect(reconnectDelayMs(3, () => 1)).toBe(8000);
    expect(reconnectDelayMs(10, () => 1)).toBe(30_000);
    expect(reconnectDelayMs(10, () => 0)).toBe(15_000);
  });
});

describe('resultViewOf', () => {
  const base = { success: true, operatorSummary: 's', recommendedNextActions: [], specialistContract: {} };

  it('reads a qa-verification execution as a verdict with its failing tests', () => {
    const view = resultViewOf('qa-verification', {
      ...base,
      mode: 'execute',
      verdict: 'failed',
      runner: 'node-test',
      passed: 1,
      failed: 1,
      skipped: 0,
      exitCode: 1,
      failures: [{ name: 'rounds half cents up', file: 'apps/invoice/test/rounding.test.mjs' }],
      outputTail: '# fail 1',
    });
    expect(view).toMatchObject({ kind: 'tests', verdict: { verdict: 'failed', passed: 1, failed: 1, skipped: 0, failures: [{ name: 'rounds half cents up', where: 'apps/invoice/test/rounding.test.mjs' }] } });
  });

  it('reads test-intelligence totals and failure messages', () => {
    const view = resultViewOf('test-intelligence', {
      ...base,
      posture: 'failing',
      postureReason: '1 consistent failure',
      totals: { tests: 10, failures: 1, errors: 1, skipped: 2, time: 3 },
      failures: [{ name: 't1', classname: 'suite', kind: 'failure', message: 'expected 1 to be 2', report: 'junit.xml' }],
    });
    expect(view).toMatchObject({ kind: 'tests', verdict: { verdict: 'failing', passed: 6, failed: 2, skipped: 2, failures: [{ name: 't1', message: 'expected 1 to be 2', where: 'suite · junit.xml' }] } });
  });

  it('reads security findings, compliance checks and code-index problems as finding rows', () => {
    expect(resultViewOf('security-audit', { ...base, findings: [{ rule: 'aws-key', severity: 'high', file: 'a.env', line: 3, evidence: 'AKIA…' }] })).toMatchObject({
      kind: 'findings',
      rows: [{ severity: 'high', rule: 'aws-key', file: 'a.env', line: 3, message: 'AKIA…' }],
    });
    expect(resultViewOf('compliance-review', { ...base, checks: [{ check: 'licence-declared', status: 'fail', evidence: 'none' }] })).toMatchObject({
      kind: 'findings',
      rows: [{ severity: 'fail', rule: 'licence-declared', file: null }],
    });
    expect(resultViewOf('code-index', { ...base, problems: [{ file: 'src/a.ts', problem: 'line 4: import "./b" does not resolve (missing)' }] })).toMatchObject({
      kind: 'findings',
      rows: [{ rule: 'unresolved-import', file: 'src/a.ts', line: 4, message: 'import "./b" does not resolve (missing)' }],
    });
  });

  it('reads generated text, gates, an in-process wrapper, and falls back to the tree', () => {
    expect(resultViewOf('content-generate', { ...base, title: 'T', content: '# T\n\nbody', wordCount: 2 })).toMatchObject({ kind: 'text', text: { title: 'T', markdown: '# T\n\nbody' } });
    expect(resultViewOf('summarize-content', { status: 'success', result: { ...base, summary: 'Short.', bullets: ['a'] } })).toMatchObject({ kind: 'text', text: { markdown: 'Short.\n\n- a' } });
    expect(resultViewOf('release-readiness', { ...base, posture: 'hold', gates: [{ gate: 'ci', status: 'warn', evidence: 'slow' }] })).toEqual({ kind: 'gates', posture: 'hold', gates: [{ gate: 'ci', status: 'warn', evidence: 'slow' }] });
    expect(resultViewOf('qa-verification', { ...base, success: false, error: 'refused' })).toEqual({ kind: 'tree' });
    expect(resultViewOf('market-research', { ...base, candidates: [] })).toEqual({ kind: 'tree' });
  });
});

describe('attemptTimeline', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

  it('turns queue attempts into phases, a failed attempt followed by another into a retry wait', () => {
    const t = attemptTimeline(
      {
        status: 'success',
        createdAt: at(0),
        updatedAt: at(30),
        finishedAt: at(30),
        queueAttempts: [
          { attemptId: 'r#1', attempt: 1, state: 'admitted', at: at(0) },
          { attemptId: 'r#1', attempt: 1, state: 'awaiting-approval', at: at(1) },
          { attemptId: 'r#1', attempt: 1, state: 'running', at: at(11) },
          { attemptId: 'r#1', attempt: 1, state: 'failed', at: at(13) },
          { attemptId: 'r#2', attempt: 2, state: 'admitted', at: at(23) },
          { attemptId: 'r#2', attempt: 2, state: 'running', at: at(24) },
          { attemptId: 'r#2', attempt: 2, state: 'success', at: at(30) },
        ],
      },
      Date.parse(at(99)),
    );
    expect(t.phases.map((p) => [p.kind, p.attempt, (p.endMs - p.startMs) / 1000])).toEqual([
      ['queued', 1, 1],
      ['approval', 1, 10],
      ['running', 1, 2],
      ['retry-wait', 1, 10],
      ['queued', 2, 1],
      ['running', 2, 6],
    ]);
    expect(t.finished).toEqual({ status: 'success', atMs: Date.parse(at(30)) });
    expect(t.endMs - t.startMs).toBe(30_000);
  });

  it('lets the open phase of a live run run until now', () => {
    const t = attemptTimeline(
      { status: 'running', createdAt: at(0), updatedAt: at(1), finishedAt: null, queueAttempts: [{ attemptId: 'r#1', attempt: 1, state: 'running', at: at(1) }] },
      Date.parse(at(5)),
    );
    expect(t.phases).toEqual([expect.objectContaining({ kind: 'running', open: true, endMs: Date.parse(at(5)) })]);
    expect(t.finished).toBeNull();
  });
});

describe('curlCommand and formats', () => {
  it('names the key by variable, never by value, and quotes the body for a shell', () => {
    const cmd = curlCommand('http://127.0.0.1:3000', 'POST', '/api/tasks/runs/a%3Ab/cancel', { reason: "it's stuck" });
    expect(cmd).toBe(
      `curl -sS -X POST -H "Authorization: Bearer $ORCH_API_KEY" -H 'content-type: application/json' --data '{"reason":"it'\\''s stuck"}' 'http://127.0.0.1:3000/api/tasks/runs/a%3Ab/cancel'`,
    );
  });

  it('formats durations and ages for people', () => {
    expect(formatDuration(120)).toBe('120 ms');
    expect(formatDuration(3400)).toBe('3.4 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatAgo(new Date(10_000).toISOString(), 10_500)).toBe('just now');
    expect(formatAgo(new Date(0).toISOString(), 65_000)).toBe('1 min 5 s ago');
  });
});
