import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qaVerification } from '../../../agents/qa-verification-agent/verify.js';
import type { LanePayload } from '../../../src/worker-sdk/lane-definition.js';
import { hostSandbox } from '../../support/sandbox.js';

describe('qa-verification result paths', () => {
  let base: string;
  let workspaceRoot: string;
  const lane = async (payload: LanePayload<'qa-verification'>): Promise<Record<string, any>> => qaVerification(payload, { workspaceRoot, runId: null }, { decideSandbox: hostSandbox });

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'qa-paths-'));
    workspaceRoot = join(base, 'workspace');
    const cart = join(workspaceRoot, 'cart');
    mkdirSync(join(cart, 'test'), { recursive: true });
    // node:test's TAP names the failing file by its absolute location; the script prints its folder.
    writeFileSync(join(cart, 'package.json'), JSON.stringify({ name: 'cart', scripts: { test: 'node -e "console.log(process.cwd())" && node --test test/' } }));
    writeFileSync(join(cart, 'test', 'sum.test.mjs'), "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('adds', () => assert.equal(1 + 1, 3));\n");
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('plans in the workspace-relative folder', async () => {
    const result = await lane({ target: 'cart' });
    expect(result.plan).toEqual([{ command: 'npm', args: ['run', 'test'], cwd: 'cart', script: 'test' }]);
    expect(JSON.stringify(result)).not.toContain(base);
  });

  it('names failing files and the output tail workspace-relative', async () => {
    const result = await lane({ target: 'cart', mode: 'execute' });
    expect(result).toMatchObject({ success: true, verdict: 'failed', failures: [{ name: 'adds', file: 'cart/test/sum.test.mjs' }] });
    expect(result.outputTail).toContain('cart/test/sum.test.mjs');
    expect(JSON.stringify(result)).not.toContain(base);
  });
});
