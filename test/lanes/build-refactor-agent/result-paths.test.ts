import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRefactor } from '../../../agents/build-refactor-agent/build-refactor.js';
import { hostSandbox } from '../../support/sandbox.js';

describe('build-refactor result paths', () => {
  let base: string;
  let workspaceRoot: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'refactor-paths-'));
    workspaceRoot = join(base, 'workspace');
    const billing = join(workspaceRoot, 'billing');
    mkdirSync(join(billing, 'src'), { recursive: true });
    // The verification prints the absolute folder it runs in, then fails.
    writeFileSync(join(billing, 'package.json'), JSON.stringify({ name: 'billing', scripts: { test: 'node -e "console.log(process.cwd()); process.exit(1)"' } }));
    writeFileSync(join(billing, 'src', 'rate.js'), 'export const RATE = 0.2;\n');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('names files and the verification output without the server paths', async () => {
    const result = await buildRefactor(
      { type: 'refactor', scope: 'billing', intent: 'raise the rate', constraints: { runTests: true }, changes: [{ path: 'billing/src/rate.js', search: '0.2', replace: '0.25' }] },
      { workspaceRoot, runId: null },
      { decideSandbox: hostSandbox },
    );
    expect(result).toMatchObject({ success: false, rolledBack: true, verification: { project: 'billing', verdict: 'failed' } });
    expect(result.verification!.outputTail).toMatch(/^billing$/m);
    expect(readFileSync(join(workspaceRoot, 'billing', 'src', 'rate.js'), 'utf8')).toBe('export const RATE = 0.2;\n');
    expect(JSON.stringify(result)).not.toContain(base);
  });
});
