import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { apiClient, waitForTerminal } from '../support/http.js';
import { TEST_WEBHOOK_SECRET, testKeyRotation } from '../support/keys.js';
import { STAND_IN_AGENTS_DIR } from '../support/paths.js';
import { SERVICE_ENTRY, startService, type ServiceProcess } from '../support/service-process.js';

async function seedState(base: string, stateFile: string, keys: string[], stop: NodeJS.Signals = 'SIGTERM') {
  const service = await startService({ baseDir: base, config: { stateFile, agentsDir: STAND_IN_AGENTS_DIR, schedulerEnabled: false } });
  const api = apiClient(service.url);
  for (const key of keys) {
    expect((await api.trigger('summarize-content', { content: 'seed', idempotencyKey: key })).status).toBe(202);
    await waitForTerminal(api, key);
  }
  // A graceful stop compacts the journal into the snapshot, so the snapshot holds the runs;
  // SIGKILL leaves them in the journal only.
  await service.kill(stop);
}

function startExpectingExit(base: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SERVICE_ENTRY, 'start'], {
      cwd: base,
      env: {
        PATH: process.env.PATH ?? '',
        ORCHESTRATOR_CONFIG: join(base, 'orchestrator.config.json'),
        API_KEY_ROTATION: testKeyRotation(),
        WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Starts the service on `base`; a start that ends in an exit is an outcome, not an error. */
async function startOrExit(
  base: string,
): Promise<{ kind: 'running'; service: ServiceProcess } | { kind: 'exited'; code: number; stderr: string }> {
  try {
    const service = await startService({ baseDir: base, config: { stateFile: 'sql:./state/orchestrator.sqlite', agentsDir: STAND_IN_AGENTS_DIR, schedulerEnabled: false } });
    return { kind: 'running', service };
  } catch (err) {
    const exit = /service exited with (\d+) before listening:\n([\s\S]*)/.exec((err as Error).message);
    if (!exit) throw err;
    return { kind: 'exited', code: Number(exit[1]), stderr: exit[2]! };
  }
}

describe('corrupted state at start', () => {
  it('refuses a torn snapshot with a clear error, keeps the last good copy and never resets', async () => {
    const base = tempDir();
    const statePath = join(base, 'state', 'orchestrator-state.json');
    await seedState(base, './state/orchestrator-state.json', ['keep-1']);
    await seedState(base, './state/orchestrator-state.json', ['keep-2']);
    const good = readFileSync(statePath, 'utf8');
    const torn = good.slice(0, Math.floor(good.length / 2));
    writeFileSync(statePath, torn);

    const res = await startExpectingExit(base);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^fatal: /);
    expect(res.stderr).toContain('orchestrator-state.json');
    expect(readFileSync(statePath, 'utf8')).toBe(torn);
    const previous = `${statePath}.prev`;
    expect(existsSync(previous)).toBe(true);
    expect(readFileSync(previous, 'utf8')).toContain('keep-1');

    // The operator restores the last good copy; the service starts with its runs intact.
    writeFileSync(statePath, readFileSync(previous));
    const service = await startService({ baseDir: base, config: { stateFile: './state/orchestrator-state.json', agentsDir: STAND_IN_AGENTS_DIR } });
    try {
      expect((await apiClient(service.url).run('keep-1')).status).toBe(200);
    } finally {
      await service.kill();
    }
  }, 60_000);

  it('replays the journal a kill -9 left and ignores its torn last line (a write never acknowledged)', async () => {
    const base = tempDir();
    const keys = ['journal-1', 'journal-2', 'journal-3'];
    // kill -9 instead of a graceful stop: no compaction, so the runs live only in the journal.
    await seedState(base, './state/orchestrator-state.json', keys, 'SIGKILL');
    const journal = join(base, 'state', 'orchestrator-state.json.journal');
    const lines = readFileSync(journal, 'utf8').split('\n').filter(Boolean);
    for (const key of keys) expect(lines.some((l) => l.includes(JSON.stringify(key)))).toBe(true);
    appendFileSync(journal, '{"seq":999999,"op":"run","rec');
    const service = await startService({ baseDir: base, config: { stateFile: './state/orchestrator-state.json', agentsDir: STAND_IN_AGENTS_DIR } });
    try {
      const api = apiClient(service.url);
      for (const key of keys) {
        const res = await api.run(key);
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('success');
      }
      expect((await api.trigger('summarize-content', { content: 'again', idempotencyKey: 'journal-2' })).status).toBe(200);
    } finally {
      await service.kill();
    }
    // The torn tail is gone from disk: a second start reads a clean journal.
    expect(readFileSync(journal, 'utf8')).not.toContain('"seq":999999');
  }, 60_000);

  it('refuses a corrupted SQLite database with a clear error and leaves it as it was', async () => {
    const base = tempDir();
    await seedState(base, 'sql:./state/orchestrator.sqlite', ['sql-1']);
    const dbPath = join(base, 'state', 'orchestrator.sqlite');
    const bytes = readFileSync(dbPath);
    const damaged = Buffer.from(bytes);
    damaged.fill(0x5a, 0, 100);
    writeFileSync(dbPath, damaged);
    const res = await startExpectingExit(base);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^fatal: .*orchestrator\.sqlite/);
    expect(readFileSync(dbPath).equals(damaged)).toBe(true);
  }, 60_000);
});

describe('SQLite page damage found at query time', () => {
  it('a damaged runs page met by a query is reported naming the file (fatal at start-up, or errors in the error shape with health down later) and the file is left alone', async () => {
    const base = tempDir();
    const keys = Array.from({ length: 12 }, (_, i) => `page-${i}`);
    // Large payloads spread the runs over many table pages; a graceful stop checkpoints the WAL.
    const service0 = await startService({ baseDir: base, config: { stateFile: 'sql:./state/orchestrator.sqlite', agentsDir: STAND_IN_AGENTS_DIR, schedulerEnabled: false } });
    const api0 = apiClient(service0.url);
    for (const key of keys) {
      expect((await api0.trigger('summarize-content', { content: `${key} ${'x'.repeat(6000)}`, idempotencyKey: key })).status).toBe(202);
    }
    for (const key of keys) await waitForTerminal(api0, key);
    await service0.kill('SIGTERM');

    const dbPath = join(base, 'state', 'orchestrator.sqlite');
    const db = new Database(dbPath, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    // A leaf of the runs table that is neither the schema page nor the table's root: the file
    // opens and migrates cleanly, the damage shows only when a query reads that page.
    const leaves = db
      .prepare(`SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'leaf' ORDER BY pageno`)
      .pluck()
      .all() as number[];
    db.close();
    expect(leaves.length).toBeGreaterThan(2);
    const victim = leaves[Math.floor(leaves.length / 2)]!;
    const damaged = readFileSync(dbPath);
    damaged.fill(0x5a, (victim - 1) * pageSize + 8, victim * pageSize);
    writeFileSync(dbPath, damaged);

    const outcome = await startOrExit(base);
    if (outcome.kind === 'exited') {
      // Refusing to start is acceptable when start-up itself reads the page: one fatal line naming the file.
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toMatch(/^fatal: .*orchestrator\.sqlite/m);
    } else {
      const service = outcome.service;
      try {
        const api = apiClient(service.url);
        const statuses: number[] = [];
        const shapes: unknown[] = [];
        for (const path of ['/api/tasks/runs?limit=200', ...keys.map((k) => `/api/tasks/runs/${k}`)]) {
          const res = await api.get(path);
          statuses.push(res.status);
          if (res.status >= 500) shapes.push(res.body);
        }
        // The damage is reported, never answered with partial data as if all were well ...
        expect(statuses.some((s) => s >= 500)).toBe(true);
        for (const body of shapes) {
          expect(body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String), requestId: expect.any(String) } });
        }
        // ... the process stays up, and health says the store is not well.
        const health = await api.get('/health');
        expect(service.child.exitCode).toBeNull();
        expect(health.status).not.toBe(200);
      } finally {
        await service.kill();
      }
    }
    expect(readFileSync(dbPath).subarray(0, victim * pageSize).equals(damaged.subarray(0, victim * pageSize))).toBe(true);
  }, 120_000);
});
