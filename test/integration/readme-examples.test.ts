import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/config/package-root.js';
import { tempDir } from '../support/config.js';
import { parseCurl, shellCommandsOf, shellWords, type CurlRequest } from '../support/curl-command.js';
import { waitFor } from '../support/http.js';
import { SERVICE_ENTRY } from '../support/service-process.js';

// The README is read when the test runs, so changing an example changes what is tested.
const README = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
const README_ORIGIN = 'http://127.0.0.1:3000';
const OPERATOR_KEY_SLOT = /<operator key[^>]*>/g;
const RUN_ID_SLOT = /<runId[^>]*>/g;

interface Demo {
  child: ChildProcess;
  lines: string[];
  url: string;
  workspace: string;
}

/** `npm run demo` without npm: the built entry the demo script runs, in its own process group on a free port. */
async function startDemo(): Promise<Demo> {
  const workspace = tempDir('readme-demo-');
  const child = spawn(process.execPath, [SERVICE_ENTRY, 'demo'], {
    cwd: workspace,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info' },
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('"service listening"')) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`demo exited with ${code}:\n${lines.join('\n')}`)));
    setTimeout(() => reject(new Error(`demo did not listen in time:\n${lines.join('\n')}`)), 20_000).unref();
  });
  return { child, lines, url, workspace };
}

/** The README's request, sent to the demo: its origin replaced, everything else as written. */
async function send(request: CurlRequest, demoUrl: string): Promise<{ status: number; body: any }> {
  expect(request.url.startsWith(`${README_ORIGIN}/`), `${request.url} should use the default address`).toBe(true);
  const res = await fetch(`${demoUrl}${request.url.slice(README_ORIGIN.length)}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('README examples, run as written against the demo', () => {
  let demo: Demo;
  let operatorKey: string;

  beforeAll(async () => {
    demo = await startDemo();
    const keyLine = demo.lines.find((line) => line.trim().startsWith('operator:'));
    expect(keyLine, 'the demo prints the operator key').toBeDefined();
    operatorKey = keyLine!.split(':')[1]!.trim();
  });

  afterAll(() => {
    if (demo?.child.pid !== undefined && demo.child.exitCode === null) process.kill(-demo.child.pid, 'SIGKILL');
  });

  it('starts the demo with the command this test runs', () => {
    const commands = shellCommandsOf(README);
    expect(commands).toContain('npm run demo');
    const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.demo).toBe('node dist/src/main.js demo');
  });

  it('answers every curl example with its documented outcome, and every run succeeds', async () => {
    const curls = shellCommandsOf(README).filter((command) => command.startsWith('curl '));
    expect(curls.length).toBeGreaterThanOrEqual(3);

    const triggered: Array<{ type: string; runId: string; payload: any }> = [];
    for (const written of curls) {
      const lastRunId = triggered.at(-1)?.runId;
      const command = written
        .replace(OPERATOR_KEY_SLOT, operatorKey)
        .replace(RUN_ID_SLOT, () => {
          if (lastRunId === undefined) throw new Error(`no earlier reply to take a runId from: ${written}`);
          return lastRunId;
        });
      expect(command, 'every <…> in the example is one the test knows how to fill').not.toMatch(/<[^>]+>/);
      const request = parseCurl(command);
      const path = new URL(request.url).pathname;

      if (request.method === 'POST' && path === '/api/tasks/trigger') {
        const res = await send(request, demo.url);
        const sent = JSON.parse(request.body!) as { type: string; payload: unknown };
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        expect(res.body).toMatchObject({ status: 'queued', type: sent.type, runId: expect.any(String) });
        triggered.push({ type: sent.type, runId: res.body.runId as string, payload: sent.payload });
      } else if (request.method === 'GET' && path.startsWith('/api/tasks/runs/')) {
        // The documented outcome: the run record, which reaches success.
        const run = await waitFor(async () => {
          const res = await send(request, demo.url);
          expect(res.status).toBe(200);
          return ['success', 'failed'].includes(res.body.status) ? res.body : undefined;
        });
        expect(run).toMatchObject({ runId: lastRunId, status: 'success' });
      } else {
        throw new Error(`the README shows an example this test has no documented outcome for: ${written}`);
      }
    }

    expect(triggered.map((t) => t.type)).toEqual(expect.arrayContaining(['doc-sync', 'summarize-content']));
    for (const { type, runId, payload } of triggered) {
      const res = await waitFor(async () => {
        const reply = await fetch(`${demo.url}/api/tasks/runs/${encodeURIComponent(runId)}`, {
          headers: { authorization: `Bearer ${operatorKey}` },
        });
        const run = (await reply.json()) as any;
        return ['success', 'failed'].includes(run.status) ? run : undefined;
      });
      expect(res.status, `${type} run ${runId}: ${res.error ?? ''}`).toBe('success');
      if (type === 'summarize-content') {
        expect(res.result.summary).toEqual(expect.any(String));
        expect(res.result.summary.length).toBeGreaterThan(0);
        if (payload.format === 'bullets') expect(res.result.bullets.length).toBeGreaterThan(0);
      }
      if (type === 'doc-sync') {
        // The runbooks the demo seeded are what gets indexed (an in-process handler's answer
        // sits under result.result, next to its completion status).
        expect(res.result).toMatchObject({ status: 'completed', result: { filesIndexed: 4, knowledgePackGenerated: true } });
      }
    }
  });

  it('gives the README’s short example its text back, one bullet per sentence', async () => {
    const example = shellCommandsOf(README).find((command) => command.includes('"summarize-content"'))!;
    const payload = (JSON.parse(parseCurl(example).body!) as { payload: { content: string } }).payload;
    const res = await fetch(`${demo.url}/api/tasks/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'summarize-content', payload: { ...payload, idempotencyKey: 'readme-short-example' } }),
    });
    expect(res.status).toBe(202);
    const run = await waitFor(async () => {
      const reply = await fetch(`${demo.url}/api/tasks/runs/readme-short-example`, { headers: { authorization: `Bearer ${operatorKey}` } });
      const body = (await reply.json()) as any;
      return body.status === 'success' || body.status === 'failed' ? body : undefined;
    });
    expect(run.result).toMatchObject({
      bullets: payload.content.split(/(?<=\.) /),
      note: 'content is shorter than a summary; returned as written',
    });
  });

  it('runs the key generator the README gives', () => {
    const generator = /`(node -e "[^`]+")`/.exec(README)?.[1];
    expect(generator, 'the README shows how to generate a key').toBeDefined();
    const [, ...args] = shellWords(generator!);
    const key = execFileSync(process.execPath, args, { encoding: 'utf8' });
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}\n$/);
  });

  it('seeds the workspace and prints commands for it that use the operator key and the live address', () => {
    expect(existsSync(join(demo.workspace, 'workspace', 'docs', 'rotating-keys.md'))).toBe(true);
    expect(existsSync(join(demo.workspace, 'workspace', 'projects', 'sample-app', 'package.json'))).toBe(true);
    // The example operator task types (docs/task-types.md), loaded at start with the rest.
    expect(existsSync(join(demo.workspace, 'workspace', 'task-types', 'word-stats', 'task-type.json'))).toBe(true);
    const printed = demo.lines.filter((line) => line.trim().startsWith('curl ')).map((line) => parseCurl(line.trim()));
    expect(printed.length).toBeGreaterThanOrEqual(3);
    for (const request of printed) {
      expect(request.headers.authorization).toBe(`Bearer ${operatorKey}`);
      expect(request.url.startsWith(`${demo.url}/api/tasks/`) || request.url.startsWith(`${demo.url}/api/business/`), request.url).toBe(true);
    }
    // The business commands work on the registry the demo seeds.
    expect(existsSync(join(demo.workspace, 'workspace', 'business', 'registry.json'))).toBe(true);
    expect(printed.some((request) => request.url === `${demo.url}/api/business/cycle/trigger`)).toBe(true);
    const scoped = printed.filter((request) => request.body?.includes('"scope":"projects/sample-app"'));
    expect(scoped.length).toBeGreaterThanOrEqual(1);
  });
});
