import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityAudit } from '../../../agents/security-agent/audit.js';
import { outsideFixture, POSIX, type OutsideFixture } from '../../support/outside-files.js';

/** security-audit walks its scope: a hard link of a file outside the workspace is counted, never scanned. */
describe.skipIf(!POSIX)('security-audit and a hard-linked file', () => {
  let fx: OutsideFixture;

  beforeAll(() => {
    fx = outsideFixture('security-links');
    const secret = 'AWS_SECRET_ACCESS_KEY="q8Zr2LmX9vTn4KwB7pYc1HdF3sGj6RaEw0Pq"\n';
    const outside = fx.writeOutside('deploy.env', secret);
    // The control: the same line in a file of the project is found.
    fx.write('app/config/own.env', secret);
    fx.write('app/src/run.js', 'export const run = () => 1;\n');
    fx.hardLink('app/config/deploy.env', outside);
  });
  afterAll(() => fx.cleanup());

  it('skips the hard link as such and reports nothing read from it', () => {
    const result = securityAudit({ type: 'scan', scope: 'app' }, { workspaceRoot: fx.workspace, runId: null });
    expect(result).toMatchObject({ success: true, skipped: { hardLinks: 1 } });
    if (!result.success) return;
    expect(result.findings.filter((f) => f.file === 'app/config/deploy.env')).toEqual([]);
    expect(result.findings.filter((f) => f.file === 'app/config/own.env').length).toBeGreaterThan(0);
    expect(JSON.stringify(result)).not.toContain(fx.base);
  });
});
