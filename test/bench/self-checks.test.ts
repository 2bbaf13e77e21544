/**
 * The bench's own checks, proved against deliberately broken subjects: an acknowledged key the
 * store never holds, a ceiling answering 500, a read load answered 404, a ratio against a
 * subject whose checks failed. Each must fail its row (and so the run).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnswers } from '../../bench/lib/answers.js';
import { runCleanups } from '../../bench/lib/cleanup.js';
import { benchFault, CEILING_500_EVERY, startAckDroppingProxy } from '../../bench/lib/fault.js';
import { countLines } from '../../bench/lib/handler-log.js';
import { acknowledgedKey, compareKeys } from '../../bench/lib/key-sets.js';
import { runLoad } from '../../bench/lib/load.js';
import { RowSink } from '../../bench/lib/results.js';
import { markdownTable, textTable } from '../../bench/lib/table.js';
import { startBareFastify } from '../../bench/peers/launch-bare-fastify.js';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../bench/lib/paths.js';

type LoadHook = (url: string, context: object, next: () => Promise<{ format: string; source: string }>) => Promise<{ source: unknown }>;

afterAll(async () => {
  await runCleanups();
});

async function triggerOnce(url: string, key: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/api/tasks/trigger`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: key } }),
  });
  return { status: res.status, body: await res.text() };
}

describe('stored keys against acknowledged keys', () => {
  it('one acknowledged key missing fails, even when an extra stored key makes the counts equal', () => {
    const acknowledged = new Set(['a', 'b', 'c']);
    const stored = new Set(['a', 'b', 'x']);
    const result = compareKeys(acknowledged, stored, 5);
    expect(result.ok).toBe(false);
    expect(result.missing).toEqual(['c']);
    expect(result.detail).toContain('1 acknowledged keys not stored (e.g. c)');
  });

  it('stored keys without a seen answer pass only up to the requests in flight at a stop', () => {
    const acknowledged = new Set(['a', 'b']);
    expect(compareKeys(acknowledged, new Set(['a', 'b', 'x', 'y']), 2).ok).toBe(true);
    expect(compareKeys(acknowledged, new Set(['a', 'b', 'x', 'y', 'z']), 2).ok).toBe(false);
  });

  it('reads the key of a 202 answer only', () => {
    expect(acknowledgedKey(202, '{"runId":"k1","status":"queued"}')).toBe('k1');
    expect(acknowledgedKey(200, '{"runId":"k1","status":"duplicate"}')).toBeNull();
    expect(acknowledgedKey(202, 'not json')).toBeNull();
  });
});

describe('BENCH_FAULT', () => {
  it('accepts the known faults and refuses anything else', () => {
    expect(benchFault({})).toBeNull();
    expect(benchFault({ BENCH_FAULT: 'drop-one-ack' })).toBe('drop-one-ack');
    expect(benchFault({ BENCH_FAULT: 'ceiling-500' })).toBe('ceiling-500');
    expect(benchFault({ BENCH_FAULT: 'flow-step-twice' })).toBe('flow-step-twice');
    expect(() => benchFault({ BENCH_FAULT: 'nonsense' })).toThrow(/BENCH_FAULT must be one of/);
  });

  it('drop-one-ack: the proxy acknowledges one trigger it never passes on, and the key check fails', async () => {
    const received = new Set<string>();
    const upstream: Server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        const key = (JSON.parse(text) as { payload: { idempotencyKey: string } }).payload.idempotencyKey;
        received.add(key);
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'queued', runId: key }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const proxy = await startAckDroppingProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    try {
      const acknowledged = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const answer = await triggerOnce(proxy.url, `k${i}`);
        const key = acknowledgedKey(answer.status, answer.body);
        if (key) acknowledged.add(key);
      }
      expect(acknowledged.size).toBe(10);
      expect(received.size).toBe(9);
      expect(proxy.dropped()).not.toBeNull();
      expect(received.has(proxy.dropped()!)).toBe(false);
      const rows = new RowSink('admission');
      const keys = compareKeys(acknowledged, received, 0);
      rows.check('service (json file)', 'stored keys = acknowledged keys', keys.ok, keys.detail);
      expect(rows.rows[0]!.failed).toBe(true);
      expect(textTable(rows.rows)).toContain(`FAIL: 10 acknowledged, 9 stored; 1 acknowledged keys not stored (e.g. ${proxy.dropped()!})`);
    } finally {
      await proxy.stop();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('ceiling-500: the durable ceiling answers 500 to every n-th trigger, stores none of those, and its check fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-fault-'));
    const journal = join(dir, 'journal');
    const bare = await startBareFastify({ durableFile: journal, fail500Every: CEILING_500_EVERY });
    try {
      const acknowledged = new Set<string>();
      let counter = 0;
      const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `c-${counter++}` } });
      const summary = await runLoad({
        title: 'ceiling-500',
        url: bare.url,
        connections: 4,
        amount: CEILING_500_EVERY * 4,
        maxMs: 20_000,
        method: 'POST',
        path: '/api/tasks/trigger',
        body: body(),
        setup: () => ({ body: body() }),
        onResponse: (status, text) => {
          const key = acknowledgedKey(status, text);
          if (key) acknowledged.add(key);
        },
      });
      expect(summary.statusCodes['500']).toBe(4);
      const stored = new Set(readFileSync(journal, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { runId: string }).runId));
      // What it did acknowledge it stored: the failed requests are what fails the row.
      expect(compareKeys(acknowledged, stored, 0).ok).toBe(true);
      const rows = new RowSink('admission');
      expect(checkAnswers(rows, 'bare fastify + fdatasync', 'admission', summary)).toBe(false);
      rows.add({ subject: 'service (json file)', metric: 'req/s vs durable', unit: '', value: 900, baseline: { subject: 'bare fastify + fdatasync', value: summary.okRps } });
      expect(rows.rows[1]!.ratio).toBeNull();
      expect(rows.rows[1]!.ratioFailed).toBe(true);
      expect(textTable(rows.rows)).toMatch(/non-2xx \(500x4\)/);
    } finally {
      await bare.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ratios against failed checks', () => {
  it('a ratio against a subject whose check failed prints as failed, whether the check came before or after', () => {
    const rows = new RowSink('postgres');
    rows.add({ subject: 'service', metric: 'tasks/s vs pg-boss', unit: '', value: 500, better: 'higher', baseline: { subject: 'pg-boss', value: 1000 } });
    expect(rows.rows[0]!.ratio).toBe(0.5);
    rows.check('pg-boss', 'completed = N', false, '299/300 completed');
    rows.add({ subject: 'service (3)', metric: 'tasks/s vs pg-boss', unit: '', value: 800, better: 'higher', baseline: { subject: 'pg-boss', value: 1000 } });
    rows.add({ subject: 'service (3)', metric: 'tasks/s vs service', unit: '', value: 800, better: 'higher', baseline: { subject: 'service', value: 500 } });
    expect(rows.rows.map((r) => r.ratioFailed ?? false)).toEqual([true, false, true, false]);
    expect(rows.rows[3]!.ratio).toBe(1.6);
    const text = textTable(rows.rows);
    expect(text.split('\n').filter((l) => l.includes('tasks/s vs pg-boss')).every((l) => /\bfailed\b/.test(l))).toBe(true);
    expect(markdownTable(rows.rows)).toContain('| failed |');
  });

  it("a subject's own failed check fails its ratios too", () => {
    const rows = new RowSink('postgres');
    rows.add({ subject: 'service', metric: 'tasks/s vs pg-boss', unit: '', value: 5000, baseline: { subject: 'pg-boss', value: 1000 } });
    rows.check('service', 'duplicatesExecuted = 0 (handler log)', false, '1 duplicate executions');
    expect(rows.rows[0]).toMatchObject({ ratio: null, ratioFailed: true });
  });
});

describe('read scenarios: non-2xx answers fail the row', () => {
  it('a load answered 404 fails its check; a clean one passes', () => {
    const rows = new RowSink('reads');
    expect(checkAnswers(rows, 'service (json file)', 'detail uncached', { completed: 10, non2xx: 3, errors: 0, statusCodes: { '200': 7, '404': 3 } })).toBe(false);
    expect(checkAnswers(rows, 'service (sqlite)', 'detail uncached', { completed: 10, non2xx: 0, errors: 0, statusCodes: { '200': 10 } })).toBe(true);
    expect(checkAnswers(rows, 'service (sqlite)', 'list', { completed: 0, non2xx: 0, errors: 0, statusCodes: {} })).toBe(false);
    expect(rows.rows.map((r) => r.failed ?? false)).toEqual([true, false, true]);
    expect(rows.rows[0]!.note).toBe('FAIL: 10 answered, 3 non-2xx (404x3), 0 socket errors');
  });
});

describe("the handler's own execution log", () => {
  it('wraps the built doc-sync handler so each execution appends its run id, and leaves other modules alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-hlog-'));
    const log = join(dir, 'log');
    const previous = process.env.BENCH_HANDLER_LOG;
    try {
      process.env.BENCH_HANDLER_LOG = log;
      const hookUrl = pathToFileURL(join(ROOT, 'bench', 'lib', 'handler-log-hook.mjs')).href;
      const hook = (await import(/* @vite-ignore */ hookUrl)) as { load: LoadHook };
      const source = 'export const docSync = async (state, config, input) => ({ status: "completed", result: { runId: input.runId } });\n';
      const next = async () => ({ format: 'module', source });
      const other = await hook.load('file:///x/dist/src/lanes/heartbeat/handler.js', {}, next);
      expect(other.source).toBe(source);
      const wrapped = await hook.load('file:///x/dist/src/lanes/doc-sync/handler.js', {}, next);
      const url = `data:text/javascript,${encodeURIComponent(String(wrapped.source))}`;
      const mod = (await import(url)) as { docSync: (s: unknown, c: unknown, i: { runId: string }) => Promise<{ result: { runId: string } }> };
      await mod.docSync({}, {}, { runId: 'r1' });
      await mod.docSync({}, {}, { runId: 'r2' });
      const answer = await mod.docSync({}, {}, { runId: 'r1' });
      expect(answer.result.runId).toBe('r1');
      expect(countLines(readFileSync(log, 'utf8'))).toEqual({ r1: 2, r2: 1 });
      await expect(hook.load('file:///x/dist/src/lanes/doc-sync/handler.js', {}, async () => ({ format: 'module', source: 'export function docSync() {}' }))).rejects.toThrow(/not found/);
    } finally {
      if (previous === undefined) delete process.env.BENCH_HANDLER_LOG;
      else process.env.BENCH_HANDLER_LOG = previous;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
