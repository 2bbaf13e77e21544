import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityAudit } from '../../../agents/security-agent/audit.js';

describe('security-audit result paths', () => {
  let base: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'security-paths-'));
    const app = join(base, 'workspace', 'app');
    mkdirSync(join(app, 'src'), { recursive: true });
    mkdirSync(join(app, 'dist'), { recursive: true });
    writeFileSync(join(app, 'src', 'run.js'), 'export const run = (req) => eval(req.body.code);\n');
    writeFileSync(join(app, 'dist', 'bundle.js'), 'const API_KEY = "q8Zr2LmX9vTn4KwB7pYc1HdF3sGj6RaE";\n');
    writeFileSync(join(app, 'big.log'), 'x'.repeat(1024 * 1024 + 1));
    symlinkSync(join(base, 'elsewhere'), join(app, 'src', 'link.js'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('names every file workspace-relative: no absolute path of the server anywhere in the result', () => {
    const result = securityAudit({ type: 'scan', scope: 'app' }, { workspaceRoot: join(base, 'workspace'), runId: null });
    expect(result).toMatchObject({ success: true, skipped: { oversized: 1, symlinks: 1 } });
    if (!result.success) return;
    expect(result.findings.map((f) => f.file)).toEqual(expect.arrayContaining(['app/src/run.js', 'app/dist/bundle.js']));
    expect(JSON.stringify(result)).not.toContain(base);
  });
});
