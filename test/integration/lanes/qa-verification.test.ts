import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import { BUBBLEWRAP } from '../../support/sandbox.js';
import type { ServiceProcess } from '../../support/service-process.js';

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

describe('qa-verification lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    writeFixtureProject(join(base, 'workspace', 'apps', 'invoice'));
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

  it('fails the run when the target has no package.json', async () => {
    const res = await api.trigger('qa-verification', { target: 'apps/missing', mode: 'execute' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(JSON.stringify(run)).toContain('does not exist in the workspace');
  });
});
