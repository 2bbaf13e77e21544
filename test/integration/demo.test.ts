import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEYS_FILE } from '../../src/demo/demo-keys.js';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor } from '../support/http.js';
import { SERVICE_ENTRY } from '../support/service-process.js';

interface DemoRun {
  child: ChildProcess;
  /** Every line of its stdout so far. */
  lines: string[];
  url: string;
  keys: Record<'viewer' | 'operator' | 'admin', string>;
  exited: Promise<number | null>;
}

const running = new Set<DemoRun>();

/** `npm run demo [-- args]` without npm: the built entry, in `cwd`, in a process group of its own, on free ports. */
async function startDemo(cwd: string, args: string[] = []): Promise<DemoRun> {
  const child = spawn(process.execPath, [SERVICE_ENTRY, 'demo', ...args], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', METRICS_PORT: '0', ORCHESTRATOR_FAST_START: 'true' },
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('"service listening"')) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exited.then((code) => reject(new Error(`demo exited with ${code}:\n${[...lines, ...stderr].join('\n')}`)));
    setTimeout(() => reject(new Error(`demo did not listen in time:\n${lines.join('\n')}`)), 20_000).unref();
  });
  const keyOf = (role: string) => lines.find((l) => l.trim().startsWith(`${role}:`))!.trim().split(/\s+/)[1]!;
  const demo = { child, lines, url, keys: { viewer: keyOf('viewer'), operator: keyOf('operator'), admin: keyOf('admin') }, exited };
  running.add(demo);
  // The terminal follows the event stream once it printed its heading; runs triggered before would be missed.
  await waitFor(async () => (lines.some((l) => l.startsWith('Runs as they end')) ? true : undefined), 5_000, 'the run lines heading');
  return demo;
}

/** Stops the demo's whole process group (SIGTERM: it shuts down and frees its state file for the next start). */
async function stopDemo(demo: DemoRun): Promise<void> {
  running.delete(demo);
  try {
    process.kill(-demo.child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => process.kill(-demo.child.pid!, 'SIGKILL'), 10_000);
  await demo.exited;
  clearTimeout(timer);
}

afterEach(async () => {
  for (const demo of [...running]) await stopDemo(demo);
});

const RUN_LINE = /^\d\d:\d\d:\d\dZ {2}(\S+) +(\S+) +(\S+)(?: {2}.+)?$/;

describe('the demo (npm run demo)', () => {
  it('keeps its keys in its state folder (0600), reuses them at the next start, and makes new ones with --new-keys', async () => {
    const cwd = tempDir('demo-keys-');
    const keysFile = join(cwd, 'orchestrator', 'data', DEMO_KEYS_FILE);

    const first = await startDemo(cwd);
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: Record<string, string> };
    expect(stored.keys).toEqual(first.keys);
    expect(first.lines[0]).toContain(`made and kept in ${keysFile}`);
    await stopDemo(first);

    const second = await startDemo(cwd);
    expect(second.keys).toEqual(first.keys);
    expect(second.lines[0]).toContain(`reused in ${keysFile}`);
    // A login saved from the first start still works on the second.
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const me = await apiClient(second.url).get('/api/auth/me', first.keys[role]);
      expect(me.status).toBe(200);
      expect(me.body.role).toBe(role);
    }
    await stopDemo(second);

    const third = await startDemo(cwd, ['--new-keys']);
    for (const role of ['viewer', 'operator', 'admin'] as const) expect(third.keys[role]).not.toBe(first.keys[role]);
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    const api = apiClient(third.url);
    expect((await api.get('/api/auth/me', first.keys.operator)).status).toBe(401);
    expect((await api.get('/api/auth/me', third.keys.operator)).status).toBe(200);
  }, 90_000);

  it('refuses an option it does not know, and a keys file that is not its own, before it starts', async () => {
    const refusal = async (cwd: string, args: string[]) => {
      const child = spawn(process.execPath, [SERVICE_ENTRY, 'demo', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', PORT: '0', METRICS_PORT: '0' } });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += String(chunk)));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { code, stderr };
    };
    expect(await refusal(tempDir('demo-usage-'), ['--new-key'])).toEqual({ code: 1, stderr: 'fatal: unknown demo option "--new-key" (usage: npm run demo [-- --new-keys])\n' });

    const cwd = tempDir('demo-bad-keys-');
    const keysFile = join(cwd, 'orchestrator', 'data', DEMO_KEYS_FILE);
    mkdirSync(dirname(keysFile), { recursive: true });
    writeFileSync(keysFile, '{"keys":');
    expect(await refusal(cwd, [])).toEqual({ code: 1, stderr: `fatal: ${keysFile} is not valid JSON; run the demo with --new-keys to replace it\n` });
    expect(readFileSync(keysFile, 'utf8')).toBe('{"keys":');
  });

  it('prints one line per run as it ends, and no line per request', async () => {
    const demo = await startDemo(tempDir('demo-lines-'));
    const api = apiClient(demo.url);
    const before = demo.lines.length;
    const triggered = [
      await api.trigger('summarize-content', { content: 'The deploy finished at noon. Nothing broke.', format: 'bullets' }, demo.keys.operator),
      await api.trigger('security-audit', { type: 'scan', scope: 'projects/sample-app' }, demo.keys.operator),
      await api.trigger('no-such-type', {}, demo.keys.operator),
    ];
    expect(triggered.map((t) => t.status)).toEqual([202, 202, 400]);
    const runIds = triggered.slice(0, 2).map((t) => t.body.runId as string);
    for (let i = 0; i < 5; i++) expect((await api.get('/api/tasks/runs', demo.keys.viewer)).status).toBe(200);

    const runLines = await waitFor(async () => {
      const found = demo.lines.slice(before).filter((l) => RUN_LINE.test(l));
      return runIds.every((id) => found.some((l) => l.includes(id))) ? found : undefined;
    }, 20_000, 'a line for each run');
    // Give a late duplicate the time to show up before counting.
    await new Promise((r) => setTimeout(r, 500));
    const after = demo.lines.slice(before);
    for (const [i, runId] of runIds.entries()) {
      const mine = after.filter((l) => l.includes(runId));
      expect(mine, `lines of ${runId}`).toHaveLength(1);
      const [, status, type, id] = RUN_LINE.exec(mine[0]!)!;
      expect([status, type, id]).toEqual(['success', ['summarize-content', 'security-audit'][i], runId]);
    }
    expect(runLines.length).toBeGreaterThanOrEqual(2);
    // Eight requests were answered; none of them wrote a line.
    const jsonMessages = after.filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(jsonMessages).not.toContain('incoming request');
    expect(jsonMessages).not.toContain('request completed');
  }, 60_000);
});
