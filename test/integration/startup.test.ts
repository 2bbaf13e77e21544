import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor } from '../support/http.js';
import { TEST_WEBHOOK_SECRET, testKeyRotation } from '../support/keys.js';
import { STAND_IN_AGENTS_DIR } from '../support/paths.js';
import { SERVICE_ENTRY, startService } from '../support/service-process.js';

function runToExit(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SERVICE_ENTRY, ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('start-up', () => {
  it('exits 1 with one fatal line when no API key is configured', async () => {
    const res = await runToExit(['start'], { WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PORT: '0' }, tempDir());
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('fatal: API_KEY is required');
  });

  it('exits 1 when WEBHOOK_SECRET is missing', async () => {
    const res = await runToExit(['start'], { API_KEY: 'an-admin-key-123', PORT: '0' }, tempDir());
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('fatal: WEBHOOK_SECRET is required');
  });

  it('refuses a rotation entry without a role, naming the entry, and never echoes the key', async () => {
    const rotation = JSON.stringify([{ key: 'super-secret-key-value', label: 'no-role' }]);
    const res = await runToExit(['start'], { API_KEY_ROTATION: rotation, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PORT: '0' }, tempDir());
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^fatal: .*no-role.*role/);
    expect(res.stderr).not.toContain('super-secret-key-value');
  });

  it('refuses an operator task type manifest, naming the file and the field', async () => {
    const base = tempDir();
    const manifestPath = join(base, 'workspace', 'task-types', 'report', 'task-type.json');
    mkdirSync(join(base, 'workspace', 'task-types', 'report'), { recursive: true });
    writeFileSync(manifestPath, JSON.stringify({ type: 'report', label: 'Report', purpose: 'A report.', command: ['sh', 'run.sh'], payloadSchema: { type: 'object' }, timeoutMs: 'soon' }));
    writeFileSync(join(base, 'orchestrator.config.json'), JSON.stringify({ agentsDir: STAND_IN_AGENTS_DIR }));
    const res = await runToExit(['start'], { API_KEY_ROTATION: testKeyRotation(), WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PORT: '0', METRICS_PORT: '0' }, base);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(`fatal: invalid task type manifest ${manifestPath}: /timeoutMs must be integer`);
  });

  it('refuses an agent manifest granting a skill the registry does not govern, naming the file and the field', async () => {
    const base = tempDir();
    const agentsDir = join(base, 'agents');
    cpSync(STAND_IN_AGENTS_DIR, agentsDir, { recursive: true });
    const manifestPath = join(agentsDir, 'summarization-agent', 'agent.config.json');
    writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(readFileSync(manifestPath, 'utf8')), allowedSkills: ['teleport'] }));
    writeFileSync(join(base, 'orchestrator.config.json'), JSON.stringify({ agentsDir }));
    const res = await runToExit(
      ['start'],
      { API_KEY_ROTATION: testKeyRotation(), WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PORT: '0', METRICS_PORT: '0' },
      base,
    );
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`invalid agent manifest ${manifestPath}: allowedSkills:`);
    expect(res.stderr).toContain('"teleport"');
  });

  it('refuses a corrupt state file with a clear error and leaves it untouched', async () => {
    const base = tempDir();
    mkdirSync(join(base, 'orchestrator', 'data'), { recursive: true });
    const statePath = join(base, 'orchestrator', 'data', 'orchestrator-state.json');
    writeFileSync(statePath, '{"runs": {"torn');
    const res = await runToExit(
      ['start'],
      { API_KEY_ROTATION: testKeyRotation(), WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PORT: '0', METRICS_PORT: '0' },
      base,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^fatal: .*orchestrator-state\.json/);
    expect(readFileSync(statePath, 'utf8')).toBe('{"runs": {"torn');
  });

  it('starts on the embedded default with the state file at its default path', async () => {
    const base = tempDir();
    const service = await startService({ baseDir: base });
    try {
      const api = apiClient(service.url);
      const health = await api.get('/health', null);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('healthy');
      const persistence = await api.get('/api/persistence/health', null);
      expect(persistence.body.activeStore).toBe('file');
      await waitFor(async () => {
        try {
          readFileSync(join(base, 'orchestrator', 'data', 'orchestrator-state.json.journal'));
          return true;
        } catch {
          return undefined;
        }
      });
    } finally {
      await service.kill();
    }
  });

  it('the readiness line tells when each start-up phase ended, in order, and the CPU the start used', async () => {
    const service = await startService({ baseDir: tempDir() });
    try {
      const line = service.output.find((entry) => entry.includes('service listening'))!;
      const phases = (JSON.parse(line) as { startupPhases: Record<string, number> }).startupPhases;
      const order = ['modulesLoadedMs', 'storeOpenMs', 'composedMs', 'recoveredMs', 'listeningMs'];
      expect(Object.keys(phases)).toEqual([...order, 'cpuMs']);
      const ends = order.map((phase) => phases[phase]!);
      expect(ends[0]).toBeGreaterThan(0);
      for (let i = 1; i < ends.length; i++) expect(ends[i]).toBeGreaterThanOrEqual(ends[i - 1]!);
      // The process started before the entry's modules loaded, and it used CPU to get there.
      expect(phases.cpuMs).toBeGreaterThan(0);
    } finally {
      await service.kill();
    }
  });

  it('demo prints one key per role once, and each key has its role', async () => {
    const base = tempDir();
    const child = spawn(process.execPath, [SERVICE_ENTRY, 'demo'], {
      cwd: base,
      detached: true,
      env: { PATH: process.env.PATH ?? '', PORT: '0', METRICS_PORT: '0' },
    });
    try {
      const lines: string[] = [];
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (line.includes('service listening')) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.on('exit', (code) => reject(new Error(`demo exited ${code}: ${lines.join('\n')}`)));
      });
      const keyOf = (role: string) => lines.find((l) => l.trim().startsWith(`${role}:`))!.split(':')[1]!.trim();
      const api = apiClient(url);
      for (const role of ['viewer', 'operator', 'admin']) {
        const me = await api.get('/api/auth/me', keyOf(role));
        expect(me.status).toBe(200);
        expect(me.body.role).toBe(role);
      }
      expect(lines.filter((l) => l.includes(keyOf('admin')))).toHaveLength(1);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });
});
