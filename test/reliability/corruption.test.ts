import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { apiClient, waitForTerminal } from '../support/http.js';
import { TEST_WEBHOOK_SECRET, testKeyRotation } from '../support/keys.js';
import { FIXTURE_AGENTS } from '../support/runtime-service.js';
import { SERVICE_ENTRY, startService } from '../support/service-process.js';

async function seedState(base: string, stateFile: string, keys: string[]) {
  const service = await startService({ baseDir: base, config: { stateFile, agentsDir: FIXTURE_AGENTS, schedulerEnabled: false } });
  const api = apiClient(service.url);
  for (const key of keys) {
    expect((await api.trigger('summarize-content', { content: 'seed', idempotencyKey: key })).status).toBe(202);
    await waitForTerminal(api, key);
  }
  // A graceful stop compacts the journal into the snapshot, so the snapshot holds the runs.
  await service.kill('SIGTERM');
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
    const service = await startService({ baseDir: base, config: { stateFile: './state/orchestrator-state.json', agentsDir: FIXTURE_AGENTS } });
    try {
      expect((await apiClient(service.url).run('keep-1')).status).toBe(200);
    } finally {
      await service.kill();
    }
  }, 60_000);

  it('ignores a torn last journal line (a write that was never acknowledged)', async () => {
    const base = tempDir();
    await seedState(base, './state/orchestrator-state.json', ['journal-1']);
    const journal = join(base, 'state', 'orchestrator-state.json.journal');
    appendFileSync(journal, '{"seq":999999,"op":"run","rec');
    const service = await startService({ baseDir: base, config: { stateFile: './state/orchestrator-state.json', agentsDir: FIXTURE_AGENTS } });
    try {
      expect((await apiClient(service.url).run('journal-1')).status).toBe(200);
    } finally {
      await service.kill();
    }
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
