import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import { BUBBLEWRAP } from '../../support/sandbox.js';
import type { ServiceProcess } from '../../support/service-process.js';
import { TEST_KEYS } from '../../support/keys.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');
/** The suite runs in bubblewrap where the host has it (the default policy), else by the opt-in (test/integration/security covers the sandbox itself). */
const HOST_SANDBOX_POLICY = { allowUnsandboxed: !BUBBLEWRAP };
const SANDBOX = BUBBLEWRAP ? 'bubblewrap' : 'none';

/** A node:test project under the workspace: one passing and one failing test file. */
function writeFixtureProject(dir: string): void {
  mkdirSync(join(dir, 'test'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'invoice-app', private: true, scripts: { test: 'node --test test/' } }));
  writeFileSync(
    join(dir, 'test', 'totals.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('adds tax to the subtotal', () => assert.equal(100 + 20, 120));\n",
  );
  writeFileSync(
    join(dir, 'test', 'rounding.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('rounds half cents up', () => assert.equal(Math.round(0.125 * 100) / 100, 0.12));\n",
  );
}

/** A project whose suite prints on both streams, then keeps running for a while before it ends. */
function writeSlowProject(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'slow-app', private: true, scripts: { test: 'node suite.mjs' } }));
  writeFileSync(
    join(dir, 'suite.mjs'),
    "console.log('suite starting: 3 checks');\nconsole.error('warming the cache');\nsetTimeout(() => { console.log('# pass 3'); console.log('# fail 0'); }, 4000);\n",
  );
}

describe('qa-verification lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    writeFixtureProject(join(base, 'workspace', 'apps', 'invoice'));
    writeSlowProject(join(base, 'workspace', 'apps', 'slow'));
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR, sandbox: HOST_SANDBOX_POLICY }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('plans the suite in dry-run mode without running it', async () => {
    const res = await api.trigger('qa-verification', { target: 'apps/invoice', suite: 'smoke', mode: 'dry-run' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      mode: 'dry-run',
      script: 'test',
      plan: [{ command: 'npm', args: ['run', 'test'], cwd: 'apps/invoice', script: 'test' }],
      specialistContract: { role: 'qa-verification-agent', status: 'completed' },
    });
    expect(run.result).not.toHaveProperty('passed');
  });

  it('runs the suite in execute mode and names the failing test', async () => {
    const res = await api.trigger('qa-verification', { target: 'apps/invoice', suite: 'full', mode: 'execute' });
    const run = await waitForTerminal(api, res.body.runId, 60_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      mode: 'execute',
      sandbox: SANDBOX,
      verdict: 'failed',
      runner: 'node-test',
      passed: 1,
      failed: 1,
      skipped: 0,
      exitCode: 1,
      failures: [{ name: 'rounds half cents up', file: 'apps/invoice/test/rounding.test.mjs' }],
    });
    expect(run.result.outputTail).toContain('# fail 1');
    expect(run.result.operatorSummary).toContain('rounds half cents up');
  });

  it("shows the suite's output in the run log while it runs, each line under its stream", async () => {
    const res = await api.trigger('qa-verification', { target: 'apps/slow', mode: 'execute' });
    expect(res.status).toBe(202);
    const runId = res.body.runId as string;
    type Line = { stream: string; line: string };
    const linesOf = async (): Promise<Line[]> => {
      const logs = await api.get(`/api/tasks/runs/${encodeURIComponent(runId)}/logs`, TEST_KEYS.operator);
      return (logs.body.attempts as Array<{ lines: Line[] }> | undefined)?.flatMap((a) => a.lines) ?? [];
    };
    // The suite's first lines reach the log while the suite still runs (it prints its summary 4 s later).
    const deadline = Date.now() + 30_000;
    let seen: Line[] = [];
    while (Date.now() < deadline) {
      seen = await linesOf();
      if (seen.some((l) => l.line === 'warming the cache')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const whileRunning = (await api.get(`/api/tasks/runs/${encodeURIComponent(runId)}`, TEST_KEYS.operator)).body as { status: string };
    expect(whileRunning.status).toBe('running');
    expect(seen.find((l) => l.line === 'suite starting: 3 checks')?.stream).toBe('stdout');
    expect(seen.find((l) => l.line === 'warming the cache')?.stream).toBe('stderr');
    expect(seen.some((l) => l.line === '# pass 3')).toBe(false);
    const run = await waitForTerminal(api, runId, 60_000);
    expect(run.status).toBe('success');
    const after = await linesOf();
    expect(after.filter((l) => l.stream === 'stdout').map((l) => l.line)).toEqual(expect.arrayContaining(['suite starting: 3 checks', '# pass 3', '# fail 0']));
    // The marks that carry a line's stream never reach the log.
    expect(after.every((l) => !l.line.includes('\u001e'))).toBe(true);
  });

  it('fails the run when the target has no package.json', async () => {
    const res = await api.trigger('qa-verification', { target: 'apps/missing', mode: 'execute' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(JSON.stringify(run)).toContain('does not exist in the workspace');
  });
});
